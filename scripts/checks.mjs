// `npm test`: the static checks (lint, typecheck, check:arch, check:unused) one after another, beside the test
// suite (`vitest run`). The suite mostly waits (on bots, timers, child processes) and leaves about one of CI's
// two cores free; the checks are one busy core for about 35 s, so they fit in what the suite leaves instead of
// adding their time before it. The suite's output is streamed; each check's output is printed whole, after the
// suite's, in this order. The exit code is 1 when a check or the suite failed.
// Arguments go to vitest (`npm test -- test/unit`); each check alone is its own npm script.
import { spawn } from 'node:child_process';

const CHECKS = ['typecheck', 'check:arch', 'check:unused', 'lint'];

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

function suite() {
  return new Promise((resolve) => {
    const child = spawn('npx', ['vitest', 'run', ...process.argv.slice(2)], { stdio: 'inherit' });
    child.on('close', (code) => resolve(code ?? 1));
  });
}

async function checks() {
  const results = [];
  for (const script of CHECKS) results.push(await run(script));
  return results;
}

const [results, suiteCode] = await Promise.all([checks(), suite()]);
let failed = suiteCode === 0 ? 0 : 1;
for (const { script, code, out, ms } of results) {
  process.stdout.write(`> npm run ${script}: ${code === 0 ? 'ok' : `failed (exit ${code})`}, ${(ms / 1000).toFixed(1)} s\n`);
  if (out.trim()) process.stdout.write(`${out.trimEnd()}\n`);
  if (code !== 0) failed += 1;
}
process.stdout.write(`> vitest run: ${suiteCode === 0 ? 'ok' : `failed (exit ${suiteCode})`}\n`);
process.exit(failed ? 1 : 0);
