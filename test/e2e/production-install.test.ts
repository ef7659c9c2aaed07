import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeSlack, startFakeSlack } from '../../src/local/fake-slack/index.js';
import { TEST_REDIS_URL, testRedis, uniquePrefix } from '../helpers/redis.js';

/**
 * The production install: a copy of the project with `npm ci --omit=dev` (no tsx, no tsc) and the compiled
 * dist/, started with `npm start`'s script and a .env file, as an operator would.
 */

const run = promisify(execFile);
const root = new URL('../..', import.meta.url).pathname;
const prefix = uniquePrefix('e2e-prod');
const SECRET = 'prod-install-signing-secret';
let dir: string;
let slack: FakeSlack;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gateway-bot-prod-'));
  for (const file of ['package.json', 'package-lock.json']) copyFileSync(join(root, file), join(dir, file));
  mkdirSync(join(dir, 'scripts'));
  copyFileSync(join(root, 'scripts/start.mjs'), join(dir, 'scripts/start.mjs'));
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  await Promise.all([
    // `npm run build`'s compile without its type check (npm test's typecheck makes it): the emitted dist/ is the
    // same file for file (isolatedModules), for half the CPU.
    run(process.execPath, [
      tsc,
      '-p',
      join(root, 'tsconfig.build.json'),
      '--outDir',
      join(dir, 'dist'),
      '--noCheck',
    ]),
    // From the local npm cache: the test proves what the install holds, not that the registry answers.
    run('npm', ['ci', '--omit=dev', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund'], {
      cwd: dir,
    }),
  ]);
  slack = await startFakeSlack();
  // About 5 s alone; tsc is CPU-bound, and on a shared two-core machine under a full suite it has taken far longer.
}, 180_000);

afterAll(async () => {
  await slack?.close();
  await testRedis(prefix).cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function start(env: Record<string, string>): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, ['scripts/start.mjs'], {
    cwd: dir,
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
  return { child, output: () => out };
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.on('exit', (code) => resolve(code));
  });

async function portOf(output: () => string): Promise<number> {
  const started = Date.now();
  for (;;) {
    const match = /serving on port (\d+)/.exec(output());
    if (match) return Number(match[1]);
    if (Date.now() - started > 15_000) throw new Error(`no port in the output:\n${output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Runs the Dockerfile's HEALTHCHECK command as Docker would, against a port; resolves with its exit code. */
async function dockerHealthcheck(port: number): Promise<number> {
  const line = /HEALTHCHECK [^\n]*\\\n\s+CMD (\[.*\])$/m.exec(readFileSync(join(root, 'Dockerfile'), 'utf8'));
  const [command, ...args] = JSON.parse(line?.[1] ?? '[]') as string[];
  if (command !== 'node') throw new Error('the HEALTHCHECK should run node');
  return run(process.execPath, args, { env: { PORT: String(port) } }).then(
    () => 0,
    (error: { code?: number }) => error.code ?? -1,
  );
}

describe('a production install (npm ci --omit=dev, compiled dist/)', () => {
  it('has no dev tool to lean on', async () => {
    await expect(run(process.execPath, ['-e', "require.resolve('tsx')"], { cwd: dir })).rejects.toThrow();
    await expect(
      run(process.execPath, ['-e', "require.resolve('typescript')"], { cwd: dir }),
    ).rejects.toThrow();
  });

  it('starts from .env, answers /healthz, and stops cleanly on SIGTERM', async () => {
    writeFileSync(
      join(dir, '.env'),
      [
        `SLACK_BOT_TOKEN=${slack.botToken}`,
        `SLACK_SIGNING_SECRET=${SECRET}`,
        `SLACK_API_URL=${slack.apiUrl}`,
        'GATEWAY_BASE_URL=sandbox',
        `REDIS_URL=${TEST_REDIS_URL}`,
        `REDIS_PREFIX=${prefix}`,
        // The environment wins over .env: this value would stop the start with a configuration error.
        'PORT=not-a-port',
      ].join('\n'),
    );
    const proc = start({ PORT: '0' });
    const port = await portOf(proc.output);
    const health = await request(`http://127.0.0.1:${port}/healthz`);
    expect(health.statusCode).toBe(200);
    expect(await health.body.json()).toMatchObject({ ok: true, redis: 'ok' });
    await expect(dockerHealthcheck(port)).resolves.toBe(0);
    proc.child.kill('SIGTERM');
    expect(await exited(proc.child)).toBe(0);
    expect(proc.output()).toContain('SIGTERM: stopping');
    expect(proc.output()).not.toContain(SECRET);
    await expect(dockerHealthcheck(port)).resolves.toBe(1);
  }, 30_000);

  it('refuses real Slack credentials without a gateway, saying how to fix it', async () => {
    writeFileSync(
      join(dir, '.env'),
      `SLACK_BOT_TOKEN=${slack.botToken}\nSLACK_SIGNING_SECRET=${SECRET}\nSLACK_API_URL=${slack.apiUrl}\n`,
    );
    const proc = start({ PORT: '0', REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: prefix });
    expect(await exited(proc.child)).toBe(1);
    expect(proc.output()).toContain('GATEWAY_BASE_URL is not set');
    expect(proc.output()).toContain('GATEWAY_BASE_URL=sandbox');
    expect(proc.output()).not.toMatch(/serving on port/);
  }, 20_000);
});
