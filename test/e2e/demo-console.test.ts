import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeArgsFor } from '../helpers/compiled.js';
import { type DemoRun, demoRunner, msBetween } from '../helpers/demo-run.js';
import { TEST_REDIS_URL } from '../helpers/redis.js';

/** The demo console's own commands, run as a person runs them: `npm run demo` in a child process. */

// Budgets for a loaded machine, where starting the demo alone may take most of a minute; a hang still fails.
const demo = demoRunner('demo-console', 180_000);
let waits: DemoRun;
let edges: DemoRun;

beforeAll(async () => {
  // One action every 8 s: the index job queues behind the audit, and `wait` sits that out.
  const waiting = demo.run(
    [
      '/gateway use acme-plumbing',
      '/gateway audit https://acme-plumbing.example/',
      '/gateway index https://acme-plumbing.example/blog/water-heaters',
      'wait',
      'wait 3s',
      'wait 70',
      'wait soon please',
    ].join('\n'),
    'waits',
    { GATEWAY_ACTION_RATE: '1/8s' },
  );
  edges = await demo.run(
    [
      'help',
      '/gateway use acme-plumbing',
      '/gateway blog',
      'fill keyword="the \\"best\\" plumber" category_id=2 tone=friendly',
      'submit',
      '/gateway use bright-dental',
      'press Ke',
      'as bob',
      '/gateway deploy',
      'fill post_id=1',
      'submit',
      'as alice',
      'press Rej',
      'press Approve',
    ].join('\n'),
    'edges',
  );
  waits = await waiting;
}, 240_000);
afterAll(demo.cleanup);

describe('the demo console: time in a script', () => {
  it('goes on past a job that waits for the rate window, and `wait` waits until it is done', () => {
    const out = waits.stdout;
    const queued = out.slice(out.indexOf('> /gateway index'), out.indexOf('> wait\n'));
    expect(queued).toMatch(/— queued: 1 action every 8 s|— queued: /);
    expect(queued).not.toMatch(/Index.* — done/);
    const waited = out.slice(out.indexOf('> wait\n'), out.indexOf('> wait 3s'));
    expect(waited).toMatch(
      /\(updated\): ✅ .*https:\/\/acme-plumbing\.example\/blog\/water-heaters.* — done/,
    );
    expect(waited).toMatch(/\(every job is done; waited \d+ s\)/);
  });

  it('`wait 3s` lets that much time pass', () => {
    expect(waits.stdout).toContain('(waited 3s)');
    expect(msBetween(waits, '> wait 3s', '> wait 70')).toBeGreaterThanOrEqual(2_900);
  });

  it('refuses a wait it cannot read, and the script exits 2', () => {
    expect(waits.stdout).toContain(
      '! wait takes nothing (until every job is done) or a time up to 10m such as 60s or 2m, not “70”',
    );
    expect(waits.stdout).toContain('not “soon please”');
    expect(waits.code, waits.stderr).toBe(2);
  });

  it('says which Redis it uses, under its own key prefix that it deletes', () => {
    expect(waits.stdout).toMatch(
      /^demo: Redis: the Redis already answering at redis:\/\/\S+ \(REDIS_URL\), under its own key prefix demo-[0-9a-f]+; it deletes those keys when it stops/m,
    );
  });

  it('names the file the bot logs to, and keeps log lines out of the conversation', () => {
    const path = /the bot's log \(LOG_LEVEL=\w+\) goes to (\S+)/.exec(waits.stdout)?.[1];
    expect(path).toBeDefined();
    // Removed when the run logged nothing: no empty log file is left behind.
    expect(existsSync(path ?? '') ? statSync(path ?? '').size : 1).toBeGreaterThan(0);
    expect(waits.stdout).not.toMatch(/^\[\d\d:\d\d:\d\d(\.\d+)?\] (WARN|ERROR|INFO)/m);
    expect(waits.stderr).not.toMatch(/(WARN|ERROR|INFO)/);
  });
});

describe('the demo console: rough edges', () => {
  it('does not claim #seo is bound before anything was bound', () => {
    expect(edges.stdout).toContain('channel #name');
    expect(edges.stdout).not.toContain('#seo is bound');
  });

  it('takes an escaped quote in fill, and a choice by its number', () => {
    const out = edges.stdout;
    expect(out).toContain('(filled keyword, category_id, tone)');
    expect(out).not.toContain('is not one of');
    expect(out).toMatch(/Blog article about “the "best" plumber” .* — done/);
  });

  it('presses a button by a unique start of its label', () => {
    expect(edges.stdout).toContain('(pressed [2] Keep Acme Plumbing & Heating)');
  });

  it('offers no button of a decided card, and shows no internal JSON', () => {
    const out = edges.stdout.slice(edges.stdout.indexOf('> press Approve'));
    expect(out).toMatch(/! no button “Approve” is shown|! that button is no longer on its message/);
    expect(edges.stdout).not.toContain('{"actionId"');
    expect(edges.code, edges.stderr).toBe(2);
  });
});

describe('the demo console: lines piped in', () => {
  it('runs each line as it arrives, not once the whole input has been read', async () => {
    const child = spawn(process.execPath, nodeArgsFor('src/local/demo.ts'), {
      env: { ...process.env, REDIS_URL: TEST_REDIS_URL },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    try {
      child.stdin.write('/gateway help\n');
      // The input is still open: the answer must come anyway.
      const started = Date.now();
      while (!out.includes('== Gateway bot commands ==')) {
        if (Date.now() - started > 120_000) throw new Error(`no help answer while stdin is open:\n${out}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(out).toContain('> /gateway help');
      child.stdin.end('quit\n');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 180_000);
});
