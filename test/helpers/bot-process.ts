import { type ChildProcess, spawn } from 'node:child_process';
import { nodeArgsFor } from './compiled.js';

/** `npm start`'s entry (src/main.ts through tsx) in a child process, its stdout and stderr gathered in order. */
export interface BotProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
  /** Resolves with the first match of `pattern` in the output; rejects after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** SIGKILL when it is still running (a test that failed early). */
  kill(): void;
}

export function startBotProcess(env: Record<string, string>): BotProcess {
  const child = spawn(process.execPath, nodeArgsFor('src/main.ts'), {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (chunk) => {
    out += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    out += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    output: () => out,
    exited,
    waitFor: (pattern, timeoutMs = 90_000) =>
      new Promise((resolve, reject) => {
        const started = Date.now();
        const timer = setInterval(() => {
          const match = pattern.exec(out);
          if (match) {
            clearInterval(timer);
            resolve(match);
          } else if (Date.now() - started > timeoutMs || child.exitCode !== null) {
            clearInterval(timer);
            reject(new Error(`no ${pattern} in the output (exit ${child.exitCode}):\n${out}`));
          }
        }, 50);
      }),
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
