/**
 * Bolt asks Slack who the bot is (`auth.test`) before it serves anyone. With Slack down at that moment the
 * process used to crash (an unhandled rejection); now it keeps running, says so in its log, and serves as
 * soon as Slack answers.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SlackDriver } from '../../src/local/driver.js';
import { type FakeSlack, startFakeSlack } from '../../src/local/fake-slack/index.js';
import { nodeArgsFor } from '../helpers/compiled.js';
import { TEST_REDIS_URL, testRedis, uniquePrefix } from '../helpers/redis.js';

const prefix = uniquePrefix('e2e-slack-down-at-start');
const SECRET = 'slack-down-at-start-secret';
let slack: FakeSlack;
let child: ChildProcess | undefined;

beforeAll(async () => {
  slack = await startFakeSlack();
});
afterAll(async () => {
  child?.kill('SIGKILL');
  await slack?.close();
  await testRedis(prefix).cleanup();
});

// tsx compiles src/ as it loads: over 20 s to serve with the machine's two cores busy elsewhere. The budgets
// only catch a hang.
function waitForOutput(output: () => string, pattern: RegExp, timeoutMs = 90_000): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const timer = setInterval(() => {
      const match = pattern.exec(output());
      if (match) {
        clearInterval(timer);
        resolve(match);
      } else if (Date.now() - started > timeoutMs) {
        clearInterval(timer);
        reject(new Error(`no ${pattern} in the output:\n${output()}`));
      }
    }, 50);
  });
}

describe('Slack down when the bot starts', () => {
  it('keeps the process up, logs what is wrong, and serves once Slack answers auth.test', async () => {
    slack.simulate.outage(['auth.test'], 'error');
    child = spawn(process.execPath, nodeArgsFor('src/main.ts'), {
      env: {
        PATH: process.env.PATH ?? '',
        SLACK_BOT_TOKEN: slack.botToken,
        SLACK_SIGNING_SECRET: SECRET,
        SLACK_API_URL: slack.apiUrl,
        PORT: '0',
        REDIS_URL: TEST_REDIS_URL,
        REDIS_PREFIX: prefix,
        GATEWAY_BASE_URL: 'sandbox',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout?.on('data', (chunk) => {
      out += chunk;
    });
    child.stderr?.on('data', (chunk) => {
      out += chunk;
    });
    let exitCode: number | null | undefined;
    const exited = new Promise<void>((resolve) =>
      child?.on('exit', (code) => {
        exitCode = code;
        resolve();
      }),
    );
    const port = Number((await waitForOutput(() => out, /serving on port (\d+)/))[1]);
    // Two failed asks (the first, and the retry a second later): the process is still there.
    await waitForOutput(() => out, /Slack answered auth\.test with HTTP 503[^\n]*asks again in 2 s/);
    expect(exitCode).toBeUndefined();
    expect(out).toContain('Requests that arrive until Slack answers are acknowledged but not handled');

    const driver = new SlackDriver({
      eventsUrl: `http://127.0.0.1:${port}/slack/events`,
      signingSecret: SECRET,
      slack,
    });
    const during = await driver.command('help', { user: 'UMEMBER', channel: 'CDOWN' });
    expect(during.status).toBe(200);

    slack.simulate.restore();
    const after = await driver.command('help', { user: 'UMEMBER', channel: 'CDOWN' });
    expect(after.status).toBe(200);
    await slack.waitFor(
      () =>
        slack
          .ephemerals('CDOWN', 'UMEMBER')
          .find((m) => /audit/.test(m.text + JSON.stringify(m.blocks ?? []))),
      {
        what: 'the help answer once Slack is back',
        timeoutMs: 10_000,
      },
    );
    expect(exitCode).toBeUndefined();
    child.kill('SIGTERM');
    await exited;
    expect(exitCode).toBe(0);
  }, 150_000);
});
