// `npm test`'s static checks (lint, typecheck, check:arch, check:unused), two at a time: each is one busy
// core for seconds (tsc and the two dependency-cruiser runs most), and CI has two. Each check's output is
// printed whole when it ends, in this order; the exit code is 1 when any failed.
import { spawn } from 'node:child_process';

const CHECKS = ['typecheck', 'check:arch', 'check:unused', 'lint'];
const AT_ONCE = 2;

function run(script) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn('npm', ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    child.stderr.on('data', (chunk) => {
      out += chunk;
    });
    child.on('close', (code) => resolve({ script, code, out, ms: Date.now() - started }));
  });
}

const results = [];
const queue = [...CHECKS];
await Promise.all(
  Array.from({ length: AT_ONCE }, async () => {
    for (let script = queue.shift(); script; script = queue.shift()) results.push(await run(script));
  }),
);
let failed = 0;
for (const { script, code, out, ms } of results.sort((a, b) => CHECKS.indexOf(a.script) - CHECKS.indexOf(b.script))) {
  process.stdout.write(`> npm run ${script}: ${code === 0 ? 'ok' : `failed (exit ${code})`}, ${(ms / 1000).toFixed(1)} s\n`);
  if (out.trim()) process.stdout.write(`${out.trimEnd()}\n`);
  if (code !== 0) failed += 1;
}
process.exit(failed ? 1 : 0);
