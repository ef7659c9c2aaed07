/**
 * Redis is the one part the bot cannot start without. With none answering, `npm start` says so in one line
 * that names REDIS_URL and how to get a Redis, and exits; once it has served, a Redis that goes away is one
 * log line per interval (not a trace per connection and try), /readyz says so, and the bot carries on when
 * Redis is back.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeSlack, startFakeSlack } from '../../src/local/fake-slack/index.js';
import { PrivateRedis } from '../fleet/private-redis.js';
import { type BotProcess, startBotProcess } from '../helpers/bot-process.js';

let slack: FakeSlack;
let redis: PrivateRedis | undefined;
const bots: BotProcess[] = [];

beforeAll(async () => {
  slack = await startFakeSlack();
});
afterAll(async () => {
  for (const bot of bots) bot.kill();
  await redis?.stop();
  await slack?.close();
});

const baseEnv = () => ({
  SLACK_BOT_TOKEN: slack.botToken,
  SLACK_SIGNING_SECRET: 'redis-at-start-secret',
  SLACK_API_URL: slack.apiUrl,
  PORT: '0',
  GATEWAY_BASE_URL: 'sandbox',
});

const run = (env: Record<string, string>) => {
  const bot = startBotProcess(env);
  bots.push(bot);
  return bot;
};

// tsx compiles src/ as it loads: seconds on an idle machine, far more on a loaded one. Loading is timed by a
// run that stops at its first check (a bad ROLE), and the run with no Redis may take at most 8 s longer: the
// bot waits 3 s for Redis (runtime.ts), and on a loaded 2-core machine its start and exit took up to 2 s more
// than the baseline's (5.02 s in one CI run). A bot that kept retrying would never exit.
describe('npm start with no Redis', () => {
  it('prints one line naming REDIS_URL and how to get a Redis, and exits non-zero within seconds of loading', async () => {
    const loadStarted = Date.now();
    const baseline = run({ ...baseEnv(), ROLE: 'chef', REDIS_URL: 'redis://127.0.0.1:1' });
    expect(await baseline.exited).toBe(1);
    const loadMs = Date.now() - loadStarted;

    const started = Date.now();
    // Port 1: nothing listens there.
    const bot = run({ ...baseEnv(), REDIS_URL: 'redis://:hunter2secret@127.0.0.1:1/0' });
    const code = await bot.exited;
    const tookMs = Date.now() - started;
    expect(code).not.toBe(0);
    const lines = bot.output().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('REDIS_URL');
    expect(lines[0]).toContain('127.0.0.1:1');
    expect(lines[0]).toMatch(/docker run .*redis/);
    expect(lines[0]).toContain('apt-get install redis-server');
    // The URL's password is never printed.
    expect(bot.output()).not.toContain('hunter2secret');
    expect(tookMs - loadMs).toBeLessThan(8_000);
  }, 180_000);
});

describe('Redis going away after the bot has served', () => {
  it('logs one line per interval, /readyz says Redis is down, and it says so when Redis is back', async () => {
    redis = await PrivateRedis.start();
    const bot = run({ ...baseEnv(), REDIS_URL: redis.url, REDIS_PREFIX: 'redis-at-start' });
    const port = Number((await bot.waitFor(/serving on port (\d+)/))[1]);
    await bot.waitFor(/gateway-bot started/);
    const before = bot.output().length;

    await redis.down();
    // ECONNRESET or ECONNREFUSED, whichever a connection sees first.
    await bot.waitFor(/Redis at 127\.0\.0\.1:\d+ is not answering \(E[A-Z]+\): retrying/, 20_000);
    const ready = await request(`http://127.0.0.1:${port}/readyz`);
    expect(ready.statusCode).toBe(503);
    expect(((await ready.body.json()) as { redis: string }).redis).toBe('not answering');
    // Seconds of every connection (the bot's, three workers', the queues') retrying, and twenty of the Home
    // publisher's polls.
    await new Promise((r) => setTimeout(r, 5_000));
    const during = bot.output().slice(before);
    // One line for the outage: a connection that came up for a moment (a reconnect that met the server before it
    // went) ends one outage and the next error starts another, each said once.
    const episodes = 1 + (during.match(/answers again/g)?.length ?? 0);
    expect(during.match(/is not answering/g)).toHaveLength(episodes);
    // Every part reports through the one outage line (the Home publisher's poll included): nothing else is
    // logged at warn or above, and no MaxRetriesPerRequestError.
    const loud = during
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { level: number | string; msg: string })
      .filter((line) => (typeof line.level === 'number' ? line.level >= 40 : /warn|error/.test(line.level)))
      .map((line) => line.msg)
      .filter((msg) => !/is not answering/.test(msg));
    expect(loud).toEqual([]);
    expect(during).not.toContain('MaxRetriesPerRequest');
    expect(during).not.toContain('ECONNREFUSED 127.0.0.1');
    expect(during).not.toMatch(/^\s+at /m);
    for (const line of during.trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();

    await redis.restart(0);
    await bot.waitFor(/Redis at 127\.0\.0\.1:\d+ answers again/, 30_000);
    const back = await request(`http://127.0.0.1:${port}/healthz`);
    expect(back.statusCode).toBe(200);
    await back.body.dump();
    bot.child.kill('SIGTERM');
    expect(await bot.exited).toBe(0);
  }, 180_000);
});
