import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis } from '../../src/redis.js';
import { TEST_REDIS_URL } from '../helpers/redis.js';

/** `npm run demo -- --script FILE` as a person runs it: a child process, its stdout the transcript. */

interface DemoRun {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

const dir = mkdtempSync(join(tmpdir(), 'demo-script-'));
const TSX = join(process.cwd(), 'node_modules', '.bin', 'tsx');

function runDemo(name: string, script: string): Promise<DemoRun> {
  const file = join(dir, `${name}.txt`);
  writeFileSync(file, script);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(TSX, ['src/local/demo.ts', '--script', file], {
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
    const killer = setTimeout(() => child.kill('SIGKILL'), 45_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(killer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

const prefixOf = (run: DemoRun) => /keys under (demo-[0-9a-f]+)/.exec(run.stdout)?.[1];

let session: DemoRun;
let mistaken: DemoRun;

beforeAll(async () => {
  [session, mistaken] = await Promise.all([
    runDemo(
      'session',
      [
        '# a comment, then a blank line',
        '',
        '/gateway help',
        '/gateway use acme-plumbing',
        '/gateway keywords',
        'press Next',
        '/gateway audit https://acme-plumbing.example/',
      ].join('\n'),
    ),
    runDemo('mistaken', ['/gateway use acme-plumbing', 'press 7', 'frobnicate', 'submit'].join('\n')),
  ]);
}, 60_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('npm run demo -- --script', () => {
  it('runs a session to the end and exits 0 with the transcript', () => {
    expect(session.code, session.stderr).toBe(0);
    expect(session.ms).toBeLessThan(40_000);
    const out = session.stdout;
    expect(out).toMatch(
      /^demo: sandbox gateway http:\/\/127\.0\.0\.1:\d+.* fake Slack .* Redis redis:\/\/.* bot on port \d+/m,
    );
    expect(out).toContain('alice in #seo> /gateway help');
    expect(out).not.toContain('a comment');
    expect(out).toContain('gateway (only visible to you): == Gateway bot commands ==');
    expect(out).toContain('`/gateway keywords');
    expect(out).toContain(
      'gateway: This channel is now bound to Acme Plumbing & Heating (`acme-plumbing`), by @alice.',
    );
  });

  it('shows the keywords page 1–20, and 21–40 after pressing Next', () => {
    const out = session.stdout;
    const first = out.indexOf('`keywords` for Acme Plumbing & Heating · 1–20 of');
    const pressed = out.indexOf('(pressed [1] Next)');
    const second = out.indexOf('gateway (updated): `keywords` for Acme Plumbing & Heating · 21–40 of');
    expect(first).toBeGreaterThan(0);
    expect(pressed).toBeGreaterThan(first);
    expect(second).toBeGreaterThan(pressed);
    expect(out.slice(second)).toContain('[1] Previous  [2] Next');
  });

  it('waits for the audit job and shows its result in the thread of its status message', () => {
    const out = session.stdout.slice(session.stdout.indexOf('> /gateway audit'));
    expect(out).toMatch(
      /\ngateway: .*SEO audit of https:\/\/acme-plumbing\.example\/ for Acme Plumbing & Heating.* — done/,
    );
    expect(out).toMatch(/\n {4}gateway: 🔍 Score: \d+\/100\n {6}Issues found: \d+/);
  });

  it('leaves no keys of its own in Redis', async () => {
    const prefix = prefixOf(session);
    expect(prefix).toBeDefined();
    const redis = createRedis(TEST_REDIS_URL);
    try {
      expect(await redis.keys(`${prefix}*`)).toEqual([]);
    } finally {
      await redis.quit();
    }
  });

  it('reports lines it cannot carry out, goes on, and exits 2', () => {
    expect(mistaken.code, mistaken.stderr).toBe(2);
    const out = mistaken.stdout;
    expect(out).toContain('! no button “7” is shown');
    expect(out).toContain('! “frobnicate” is not a console command');
    expect(out).toContain('! no modal is open: nothing to submit');
    expect(out, mistaken.stderr).toContain('now bound to Acme Plumbing');
  });
});
