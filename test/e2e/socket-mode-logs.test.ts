import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SlackDriver } from '../../src/local/driver.js';
import { type FakeSlack, startFakeSlack } from '../../src/local/fake-slack/index.js';
import { createLogger } from '../../src/logger.js';
import { type Runtime, startRuntime } from '../../src/runtime.js';
import { testConfig, textOf } from '../helpers/bot-harness.js';
import { testRedis, uniquePrefix } from '../helpers/redis.js';

/**
 * The bot over Socket Mode at LOG_LEVEL=debug: a command's response URL posts into the channel as the bot for
 * 30 minutes, so no log line may carry it, whoever logs it (the Socket Mode client prints whole envelopes).
 */

const CHANNEL = 'CSOCKLOGS';
const MEMBER = 'UMEMBER';
const prefix = uniquePrefix('e2e-socket-logs');
const lines: string[] = [];
let slack: FakeSlack;
let runtime: Runtime;

beforeAll(async () => {
  slack = await startFakeSlack();
  const config = testConfig(slack, prefix, {
    SLACK_APP_TOKEN: 'xapp-1-fake',
    GATEWAY_BASE_URL: 'sandbox',
    GATEWAY_ADMINS: 'UADMIN',
    LOG_LEVEL: 'debug',
  });
  const logger = createLogger({ level: 'debug', write: (line) => lines.push(line) });
  runtime = await startRuntime(config, logger, { worker: { reconcileGraceMs: 50, backoffMs: 50 } });
});
afterAll(async () => {
  await runtime?.stop(5_000);
  await slack?.close();
  await testRedis(prefix).cleanup();
});

describe('Socket Mode at LOG_LEVEL=debug', () => {
  it('logs no response URL, in any form, while answering a command', async () => {
    const driver = new SlackDriver({ transport: 'socket', slack });
    const sent = await driver.command('help', { user: MEMBER, channel: CHANNEL });
    await slack.waitFor(
      () => slack.ephemerals(CHANNEL, MEMBER).find((m) => textOf(m).includes('/gateway keywords')),
      { what: 'the help text' },
    );
    const id = sent.responseUrl.slice(sent.responseUrl.lastIndexOf('/') + 1);
    expect(lines.length).toBeGreaterThan(0);
    // The bot itself still logs at debug; the Socket Mode client's envelope dumps do not appear.
    expect(lines.some((l) => l.includes('"level":"debug"'))).toBe(true);
    const leaking = lines.filter((l) => l.includes(id) || /hooks\.slack\.com\\?\/\S/.test(l));
    expect(leaking).toEqual([]);
    expect(lines.some((l) => l.includes('Received a message on the WebSocket'))).toBe(false);
  });

  it('redacts a hooks.slack.com URL or a response_url field wherever it is logged', () => {
    const seen: string[] = [];
    const log = createLogger({ level: 'debug', write: (line) => seen.push(line) });
    log.debug('payload {"response_url":"https:\\/\\/hooks.slack.com\\/commands\\/T1\\/2\\/secret1"}');
    log.info('posting to https://hooks.slack.com/actions/T1/2/secret2 now');
    log.child({ responseUrl: 'https://hooks.slack.com/commands/T1/2/secret3' }).warn('child');
    expect(seen).toHaveLength(3);
    for (const line of seen) expect(line).not.toMatch(/secret\d/);
  });
});
