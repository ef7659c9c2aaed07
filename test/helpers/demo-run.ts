import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeArgsFor } from './compiled.js';
import { TEST_REDIS_URL } from './redis.js';

/** One `npm run demo -- --script FILE` run, as a person runs it: a child process, its stdout the transcript. */
export interface DemoRun {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  /** When each stdout chunk arrived (ms after the start) and where it ends in `stdout`. */
  chunks: Array<{ ms: number; end: number }>;
}

/**
 * Milliseconds from the chunk holding the first `from` in the transcript to the chunk holding the first `to`
 * after it. Times one step of a run, so a slow start on a loaded machine does not count.
 */
export function msBetween(run: DemoRun, from: string, to: string): number {
  const a = run.stdout.indexOf(from);
  const b = a < 0 ? -1 : run.stdout.indexOf(to, a + from.length);
  if (b < 0) throw new Error(`no “${from}” followed by “${to}” in the transcript:\n${run.stdout}`);
  const at = (offset: number) => run.chunks.find((c) => c.end > offset)?.ms ?? Number.NaN;
  return at(b) - at(a);
}

/** A folder for a test file's scripts; `run` writes one and runs the demo on it, `cleanup` removes the folder. */
export function demoRunner(name: string, timeoutMs: number) {
  const dir = mkdtempSync(join(tmpdir(), `${name}-`));
  const run = (script: string, file = 'tour', env: Record<string, string> = {}): Promise<DemoRun> => {
    const path = join(dir, `${file}.txt`);
    writeFileSync(path, script);
    const started = Date.now();
    return new Promise((resolve, reject) => {
      // Its own process group: whatever the demo starts, the budget ends too. Compiled once per run (compiled.ts).
      const child = spawn(process.execPath, [...nodeArgsFor('src/local/demo.ts'), '--script', path], {
        env: { ...process.env, REDIS_URL: TEST_REDIS_URL, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      let stdout = '';
      let stderr = '';
      const chunks: DemoRun['chunks'] = [];
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        chunks.push({ ms: Date.now() - started, end: stdout.length });
      });
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
      });
      const killer = setTimeout(() => {
        try {
          if (child.pid) process.kill(-child.pid, 'SIGKILL');
        } catch {
          child.kill('SIGKILL');
        }
      }, timeoutMs);
      child.once('error', reject);
      child.once('close', (code) => {
        clearTimeout(killer);
        resolve({ code, stdout, stderr, ms: Date.now() - started, chunks });
      });
    });
  };
  return { run, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
