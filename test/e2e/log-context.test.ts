import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SlackDriver } from '../../src/local/driver.js';
import { type FakeSlack, startFakeSlack } from '../../src/local/fake-slack/index.js';
import { createLogger } from '../../src/logger.js';
import { type Runtime, startRuntime } from '../../src/runtime.js';
import { testConfig, textOf } from '../helpers/bot-harness.js';
import { testRedis, uniquePrefix } from '../helpers/redis.js';

/** The bot's own log lines, captured: the ids that tie a line to its Slack request, job and gateway call. */

const SECRET = 'log-context-secret';
const prefix = uniquePrefix('e2e-logs');
const lines: Record<string, unknown>[] = [];
let slack: FakeSlack;
let runtime: Runtime;
let driver: SlackDriver;

beforeAll(async () => {
  slack = await startFakeSlack();
  const config = testConfig(slack, prefix, {
    SLACK_SIGNING_SECRET: SECRET,
    GATEWAY_BASE_URL: 'sandbox',
    GATEWAY_ADMINS: 'UADMIN',
    GATEWAY_ACTION_RATE: '1000/1s',
    GATEWAY_ACTION_TIMEOUT: '2s',
    LOG_LEVEL: 'debug',
  });
  const logger = createLogger({
    level: 'debug',
    secrets: [SECRET, slack.botToken],
    write: (line) => lines.push(JSON.parse(line)),
  });
  runtime = await startRuntime(config, logger, { worker: { reconcileGraceMs: 50, backoffMs: 50 } });
  driver = new SlackDriver({
    eventsUrl: `http://127.0.0.1:${runtime.port}/slack/events`,
    signingSecret: SECRET,
    slack,
  });
  await driver.command('use harbor-law', { user: 'UADMIN', channel: 'CLOGS' });
  await slack.waitFor(() => slack.messages('CLOGS').find((m) => m.text.includes('now bound')), {
    what: 'binding',
  });
});
afterAll(async () => {
  await runtime?.stop(5_000);
  await slack?.close();
  await testRedis(prefix).cleanup();
});

describe('log lines', () => {
  it('a failed command logs its request id, team, channel and user, and the gateway request id', async () => {
    runtime.sandbox?.failNext('500', { method: 'GET', resource: 'keywords', count: 5 });
    await driver.command('keywords', { user: 'UMEMBER', channel: 'CLOGS' });
    await slack.waitFor(
      () => slack.ephemerals('CLOGS', 'UMEMBER').find((m) => /not answering/.test(textOf(m))),
      { what: 'the gateway error' },
    );
    const line = lines.find((l) => String(l.msg).startsWith('gateway call failed'));
    expect(line).toMatchObject({ level: 'warn', channel: 'CLOGS', user: 'UMEMBER', command: 'gateway' });
    expect(line?.requestId).toMatch(/^[0-9a-f]{8}$/);
    expect(line?.team).toMatch(/^T/);
    expect(line?.gatewayRequestId).toEqual(expect.any(String));
  });

  it('a job logs its job id, channel and user; no line carries a secret', async () => {
    runtime.sandbox?.failNext('500', { method: 'POST', action: 'index_url' });
    await driver.command('index https://harbor-law.example/logs', { user: 'UMEMBER', channel: 'CLOGS' });
    await slack.waitFor(
      () =>
        slack
          .messages('CLOGS')
          .find(
            (m) => m.text.includes('/logs') && /done|white_check_mark|failed|:x:|attention/.test(textOf(m)),
          ),
      { what: 'the job settled', timeoutMs: 10_000 },
    );
    const jobLine = lines.find((l) => typeof l.job === 'string' && l.channel === 'CLOGS');
    expect(jobLine).toMatchObject({ user: 'UMEMBER' });
    const text = JSON.stringify(lines);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(slack.botToken);
  });
});
