import { type ChildProcess, spawn } from 'node:child_process';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeSlack, startFakeSlack } from '../../src/local/fake-slack/index.js';
import { nodeArgsFor } from '../helpers/compiled.js';
import { TEST_REDIS_URL, testRedis, uniquePrefix } from '../helpers/redis.js';

const prefix = uniquePrefix('e2e-main');
const SECRET = 'main-process-signing-secret';
let slack: FakeSlack;
const children: ChildProcess[] = [];

function run(env: Record<string, string>): {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
} {
  const child = spawn(process.execPath, nodeArgsFor('src/main.ts'), {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stdout?.on('data', (chunk) => {
    out += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    out += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

beforeAll(async () => {
  slack = await startFakeSlack();
});
afterAll(async () => {
  // A test that failed before its SIGTERM leaves its bot running.
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await slack?.close();
  await testRedis(prefix).cleanup();
});

// tsx compiles src/ as it loads: 12-15 s to start or to refuse a bad configuration in a loaded suite run,
// over 30 s with the machine's two cores busy elsewhere. The budgets only catch a hang.
describe('npm start (src/main.ts)', () => {
  it('starts from the environment, serves /healthz, logs no secret, and stops cleanly on SIGTERM', async () => {
    const proc = run({
      SLACK_BOT_TOKEN: slack.botToken,
      SLACK_SIGNING_SECRET: SECRET,
      SLACK_API_URL: slack.apiUrl,
      PORT: '0',
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: prefix,
      GATEWAY_BASE_URL: 'sandbox',
      LOG_LEVEL: 'debug',
    });
    const port = await new Promise<number>((resolve, reject) => {
      const started = Date.now();
      const timer = setInterval(() => {
        const match = /serving on port (\d+)/.exec(proc.output());
        if (match) {
          clearInterval(timer);
          resolve(Number(match[1]));
        } else if (Date.now() - started > 90_000) {
          clearInterval(timer);
          reject(new Error(`no port in the output:\n${proc.output()}`));
        }
      }, 50);
    });
    const health = await request(`http://127.0.0.1:${port}/healthz`);
    expect(health.statusCode).toBe(200);
    await health.body.dump();
    proc.child.kill('SIGTERM');
    expect(await proc.exited).toBe(0);
    const output = proc.output();
    expect(output).toContain('SIGTERM: stopping');
    expect(output).not.toContain(slack.botToken);
    expect(output).not.toContain(SECRET);
    for (const line of output.trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
  }, 120_000);

  it('refuses a bad configuration with the variable and the fix, and exits 1', async () => {
    const proc = run({
      SLACK_BOT_TOKEN: 'xoxb-1',
      ROLE: 'chef',
      REDIS_URL: TEST_REDIS_URL,
      // A user group among the admins would silently leave the install with no admin at all.
      GATEWAY_ADMINS: 'UADMIN,S0ADMINS',
      // The bot token would travel in clear to another machine.
      SLACK_API_URL: 'http://slack.example/api/',
      // One second, one hour or one day? A duration always says its unit.
      GATEWAY_APPROVAL_TTL: '1',
    });
    expect(await proc.exited).toBe(1);
    expect(proc.output()).toContain('ROLE must be one of web, worker, scheduler, mcp, all');
    expect(proc.output()).toContain('GATEWAY_ADMINS: takes user ids only (U0123ABCD), not user groups');
    expect(proc.output()).toContain('SLACK_API_URL must start with https://');
    expect(proc.output()).toContain('GATEWAY_APPROVAL_TTL: "1" has no unit; write 1s, 1m or 1h');
    expect(proc.output()).not.toMatch(/at .*\(.*:\d+:\d+\)/);
  }, 90_000);
});
