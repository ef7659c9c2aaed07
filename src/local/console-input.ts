import { createInterface, type Interface } from 'node:readline';
import type { FakeSlack } from './fake-slack/index.js';

/**
 * Where the demo console's lines come from and where its output goes: a script (a file or a pipe, each
 * line echoed after the prompt so the transcript reads like a session) or a person at a terminal (readline,
 * with output printed above the prompt so what the bot posts meanwhile does not break the line being typed).
 */

export interface LineSource {
  /** The next line, or undefined at the end (EOF, quit, ^C). */
  next(prompt: string): Promise<string | undefined>;
  print(lines: readonly string[]): void;
  close(): void;
}

/** Script lines: `#` comments and blank lines are skipped here, so the echo shows only what runs. */
export function scriptSource(text: string, write: (chunk: string) => void): LineSource {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '' && !l.trimStart().startsWith('#'));
  let index = 0;
  return {
    async next(prompt) {
      const line = lines[index++];
      if (line !== undefined) write(`\n${prompt}${line.trim()}\n`);
      return line?.trim();
    },
    print(out) {
      if (out.length) write(`${out.join('\n')}\n`);
    },
    close() {},
  };
}

/**
 * Script lines from a pipe, read as they come: a line runs as soon as it arrives, not once the whole input has
 * been read, so a script fed by another program runs step by step.
 */
export function streamSource(input: NodeJS.ReadableStream, write: (chunk: string) => void): LineSource {
  const rl = createInterface({ input, terminal: false });
  const lines = rl[Symbol.asyncIterator]();
  return {
    async next(prompt) {
      for (;;) {
        const { value, done } = await lines.next();
        if (done) return undefined;
        const line = String(value).trim();
        if (!line || line.startsWith('#')) continue;
        write(`\n${prompt}${line}\n`);
        return line;
      }
    },
    print(out) {
      if (out.length) write(`${out.join('\n')}\n`);
    },
    close() {
      rl.close();
    },
  };
}

/** A person at a terminal. `onInterrupt` runs on ^C. */
export function terminalSource(
  input: NodeJS.ReadStream,
  output: NodeJS.WriteStream,
  onInterrupt: () => void,
): LineSource {
  const rl: Interface = createInterface({ input, output, terminal: Boolean(output.isTTY) });
  const queued: string[] = [];
  let waiting: ((line: string | undefined) => void) | undefined;
  let closed = false;
  let asking = false;
  rl.on('line', (line) => {
    if (waiting) {
      const resolve = waiting;
      waiting = undefined;
      asking = false;
      resolve(line);
    } else queued.push(line);
  });
  rl.on('close', () => {
    closed = true;
    waiting?.(undefined);
    waiting = undefined;
  });
  rl.on('SIGINT', onInterrupt);
  return {
    next(prompt) {
      const line = queued.shift();
      if (line !== undefined) return Promise.resolve(line);
      if (closed) return Promise.resolve(undefined);
      rl.setPrompt(prompt);
      rl.prompt();
      asking = true;
      return new Promise((resolve) => {
        waiting = resolve;
      });
    },
    print(out) {
      if (!out.length) return;
      if (asking && output.isTTY) {
        output.write('\r\x1b[2K');
        output.write(`${out.join('\n')}\n`);
        rl.prompt(true);
      } else output.write(`${out.join('\n')}\n`);
    },
    close() {
      rl.close();
    },
  };
}

export interface IdleOptions {
  /** No new Slack call for this long counts as quiet. */
  quietMs: number;
  /** Give up waiting after this long. */
  maxMs: number;
  /** True while work the bot will report on is still pending (queued or running jobs). */
  busy?: () => Promise<boolean>;
  /**
   * The number of Slack calls before a request the bot must answer visibly: quiet only counts once a call
   * beyond it arrived. The bot acks first and answers later; a slow gateway read must not look like idle.
   */
  answerAfter?: number;
}

/** Waits until the bot is idle: quiet on the Slack side and, when asked, no pending jobs. False on the cap. */
export async function waitForIdle(slack: FakeSlack, opts: IdleOptions): Promise<boolean> {
  const started = Date.now();
  let count = slack.calls.length;
  let quietSince = Date.now();
  while (Date.now() - started < opts.maxMs) {
    await new Promise((r) => setTimeout(r, 50));
    if (slack.calls.length !== count) {
      count = slack.calls.length;
      quietSince = Date.now();
      continue;
    }
    if (opts.answerAfter !== undefined && count <= opts.answerAfter) continue;
    if (Date.now() - quietSince < opts.quietMs) continue;
    if (!opts.busy || !(await opts.busy())) return true;
  }
  return false;
}

/**
 * A command's `@name` of a known person as Slack sends it for a command with `should_escape` (manifest.yml):
 * `@erin` → `<@UEXTERNAL|erin>`. Anything else is left as typed.
 */
export function escapeMentions(text: string, people: ReadonlyArray<{ id: string; name: string }>): string {
  return text.replace(/(^|\s)@([a-z][\w.-]*)/g, (typed, before: string, name: string) => {
    const person = people.find((p) => p.name === name);
    return person ? `${before}<@${person.id}|${name}>` : typed;
  });
}
