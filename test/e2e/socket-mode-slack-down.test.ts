/**
 * Socket Mode with Slack unreachable when the bot starts: the process keeps running (as in HTTP mode), says
 * what is wrong, and connects once Slack answers. A refused app-level token is named as SLACK_APP_TOKEN.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { SlackDriver } from '../../src/local/driver.js';
import { type FakeSlack, startFakeSlack } from '../../src/local/fake-slack/index.js';
import { freePort } from '../../src/local/redis-local.js';
import { type BotProcess, startBotProcess } from '../helpers/bot-process.js';
import { TEST_REDIS_URL, testRedis, uniquePrefix } from '../helpers/redis.js';

const prefix = uniquePrefix('e2e-socket-down');
const BOT_TOKEN = 'xoxb-standin';
const bots: BotProcess[] = [];
const standIns: FakeSlack[] = [];

afterAll(async () => {
  for (const bot of bots) bot.kill();
  for (const slack of standIns) await slack.close();
  await testRedis(prefix).cleanup();
});

const run = (slackPort: number, appToken: string) => {
  const bot = startBotProcess({
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_APP_TOKEN: appToken,
    SLACK_API_URL: `http://127.0.0.1:${slackPort}/api/`,
    PORT: '0',
    REDIS_URL: TEST_REDIS_URL,
    REDIS_PREFIX: prefix,
    GATEWAY_BASE_URL: 'sandbox',
  });
  bots.push(bot);
  return bot;
};

describe('Socket Mode when Slack is unreachable at start', () => {
  it('keeps running through its failed tries, saying so, and connects and serves once Slack answers', async () => {
    const port = await freePort();
    const bot = run(port, 'xapp-fake-socket-down');
    await bot.waitFor(/serving on port (\d+)/);
    await bot.waitFor(/Slack did not answer apps\.connections\.open; the bot keeps running/);
    // Two tries have failed (the backoff doubles from 1 s), the next is 2 s away: the bot still runs.
    await bot.waitFor(/connects again in 2 s/);
    expect(bot.child.exitCode).toBeNull();
    expect(bot.output()).not.toContain('could not start');

    const slack = await startFakeSlack({ port, botToken: BOT_TOKEN });
    standIns.push(slack);
    // The next try is 2 s away (and a try takes seconds more).
    await slack
      .waitFor(() => slack.socket.connected() || undefined, {
        what: 'the bot’s Socket Mode connection',
        timeoutMs: 100_000,
      })
      .catch((error: Error) => {
        throw new Error(`${error.message}\nthe bot's output:\n${bot.output().slice(-4000)}`);
      });
    await bot.waitFor(/Socket Mode connected to Slack/, 5_000);
    const driver = new SlackDriver({ transport: 'socket', slack });
    await driver.command('help', { user: 'UMEMBER', channel: 'CSOCKDOWN' });
    await slack.waitFor(
      () => slack.ephemerals('CSOCKDOWN', 'UMEMBER').find((m) => /audit/.test(JSON.stringify(m))),
      { what: 'the help answer over the socket', timeoutMs: 20_000 },
    );
    bot.child.kill('SIGTERM');
    expect(await bot.exited).toBe(0);
  }, 240_000);

  it('names SLACK_APP_TOKEN when Slack refuses the app-level token, and exits 1', async () => {
    const slack = await startFakeSlack({ botToken: BOT_TOKEN, appToken: 'xapp-fake-accepted' });
    standIns.push(slack);
    const bot = run(Number(new URL(slack.origin).port), 'xapp-fake-refused');
    expect(await bot.exited).toBe(1);
    expect(bot.output()).toMatch(/invalid_auth from apps\.connections\.open\): check SLACK_APP_TOKEN/);
    expect(bot.output()).not.toMatch(/check SLACK_BOT_TOKEN/);
    expect(bot.output()).not.toContain('xapp-fake-refused');
  }, 120_000);
});
