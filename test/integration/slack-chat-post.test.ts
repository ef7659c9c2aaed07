import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { type FakeSlack, startFakeSlack } from '../../src/local/fake-slack/index.js';
import { silentLogger } from '../../src/logger.js';
import { ChatPoster } from '../../src/slack/chat-post.js';
import { webSlackClientOptions } from '../../src/slack/web-clients.js';

/**
 * The command answer's chat.postMessage (one JSON POST) against the local Slack stand-in, beside a WebClient
 * configured as the web role configures Bolt's: whatever Slack does, the caller sees the same outcome and the
 * same error (class, code, Slack's error in `data`), so describeError and the not-in-channel fallbacks still work.
 */

let slack: FakeSlack;

beforeAll(async () => {
  slack = await startFakeSlack({
    channels: [
      { id: 'CGENERAL', name: 'general' },
      { id: 'CQUIET', name: 'quiet', botIsMember: false },
    ],
  });
});
afterAll(() => slack.close());
beforeEach(() => slack.reset());

/** The web role's WebClient and the poster, from one config, with retries as app.ts sets them. */
function both(fast = false) {
  const config = loadConfig({
    SLACK_BOT_TOKEN: slack.botToken,
    SLACK_SIGNING_SECRET: 'secret',
    SLACK_API_URL: slack.apiUrl,
    GATEWAY_BASE_URL: 'http://127.0.0.1:9',
    GATEWAY_API_KEY: 'k',
  });
  const options = webSlackClientOptions(config.slack.apiUrl);
  const retryConfig = fast ? { ...options.retryConfig, minTimeout: 10, maxTimeout: 20 } : options.retryConfig;
  const web = new WebClient(slack.botToken, { ...options, retryConfig, logger: silentLogger() });
  const poster = new ChatPoster({
    apiUrl: config.slack.apiUrl ?? '',
    token: config.slack.botToken ?? '',
    retries: retryConfig.retries,
    minTimeoutMs: retryConfig.minTimeout,
    maxTimeoutMs: retryConfig.maxTimeout,
  });
  return { web, poster };
}

async function failure(call: () => Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    await call();
  } catch (error) {
    const e = error as Record<string, unknown> & Error;
    return { name: e.name, code: e.code, data: e.data, statusCode: e.statusCode, retryAfter: e.retryAfter };
  }
  throw new Error('the call did not fail');
}

describe('chat.postMessage as one JSON POST', () => {
  it('posts the message Slack shows, blocks and thread included', async () => {
    const { poster } = both();
    const blocks = [{ type: 'section' as const, text: { type: 'mrkdwn' as const, text: '*hi*' } }];
    const { ts } = await poster.postMessage('CGENERAL', { text: 'hi', blocks });
    expect(ts).toMatch(/^\d+\.\d{6}$/);
    await poster.postMessage('CGENERAL', { text: 'in thread' }, ts);
    expect(slack.messages('CGENERAL')).toMatchObject([{ ts, text: 'hi', blocks }]);
    expect(slack.thread('CGENERAL', ts).map((m) => m.text)).toEqual(['in thread']);
  });

  it.each([
    ['not_in_channel', 'CQUIET'],
    ['channel_not_found', 'CNOSUCH'],
  ])('fails with WebClient’s platform error for %s', async (code, channel) => {
    const { web, poster } = both();
    const ours = await failure(() => poster.postMessage(channel, { text: 'hi' }));
    const theirs = await failure(() => web.chat.postMessage({ channel, text: 'hi' }));
    expect(ours).toMatchObject({ code: 'slack_webapi_platform_error', data: { ok: false, error: code } });
    expect(ours.name).toBe(theirs.name);
    expect(ours.code).toBe(theirs.code);
    expect((ours.data as { error: string }).error).toBe((theirs.data as { error: string }).error);
  });

  it('waits out a 429 for its Retry-After and then posts, as WebClient does', async () => {
    const { poster } = both();
    slack.simulate.ratelimit('chat.postMessage', 1, 1);
    const started = Date.now();
    await poster.postMessage('CGENERAL', { text: 'after the limit' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    const calls = slack.calls.filter((c) => c.method === 'chat.postMessage');
    expect(calls.map((c) => c.ok)).toEqual([false, true]);
    expect(slack.messages('CGENERAL').map((m) => m.text)).toEqual(['after the limit']);
  });

  it('hands a 429 back with its Retry-After when told to reject rate-limited calls', async () => {
    const poster = new ChatPoster({
      apiUrl: slack.apiUrl,
      token: slack.botToken,
      rejectRateLimitedCalls: true,
    });
    slack.simulate.ratelimit('chat.postMessage', 1, 7);
    expect(await failure(() => poster.postMessage('CGENERAL', { text: 'x' }))).toMatchObject({
      code: 'slack_webapi_rate_limited_error',
      retryAfter: 7,
    });
  });

  it('retries a Slack outage with backoff, then fails with WebClient’s HTTP error', async () => {
    const { web, poster } = both(true);
    slack.simulate.outage(['chat.postMessage'], 'error');
    const ours = await failure(() => poster.postMessage('CGENERAL', { text: 'x' }));
    const tries = slack.calls.filter((c) => c.method === 'chat.postMessage').length;
    const theirs = await failure(() => web.chat.postMessage({ channel: 'CGENERAL', text: 'x' }));
    expect(ours).toMatchObject({ code: 'slack_webapi_http_error', statusCode: 503 });
    expect(ours.code).toBe(theirs.code);
    expect(ours.statusCode).toBe(theirs.statusCode);
    // The first try and three retries, as the web role's WebClient makes.
    expect(tries).toBe(4);
    expect(slack.calls.filter((c) => c.method === 'chat.postMessage').length).toBe(8);
  });
});
