import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_REDIS_URL } from './redis.js';

/** One `npm run demo -- --script FILE` run, as a person runs it: a child process, its stdout the transcript. */
export interface DemoRun {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

const TSX = join(process.cwd(), 'node_modules', '.bin', 'tsx');

/** A folder for a test file's scripts; `run` writes one and runs the demo on it, `cleanup` removes the folder. */
export function demoRunner(name: string, timeoutMs: number) {
  const dir = mkdtempSync(join(tmpdir(), `${name}-`));
  const run = (script: string, file = 'tour'): Promise<DemoRun> => {
    const path = join(dir, `${file}.txt`);
    writeFileSync(path, script);
    const started = Date.now();
    return new Promise((resolve, reject) => {
      const child = spawn(TSX, ['src/local/demo.ts', '--script', path], {
        env: { ...process.env, REDIS_URL: TEST_REDIS_URL },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
      });
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
      });
      const killer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      child.once('error', reject);
      child.once('close', (code) => {
        clearTimeout(killer);
        resolve({ code, stdout, stderr, ms: Date.now() - started });
      });
    });
  };
  return { run, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
