/**
 * Readiness says what an operator needs to know: Slack not reached until it has answered `auth.test` once (with
 * the host and the network's code in the log, not a bare "fetch failed"), and, with the in-process sandbox, the
 * gateway key honoured as the standalone sandbox honours it (`sandbox-revoked` is a clear 401). `/healthz`
 * stays as it is: a Slack or gateway outage must not restart the bot.
 */
import { createServer } from 'node:net';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startFakeSlack } from '../../src/local/fake-slack/index.js';
import { createLogger } from '../../src/logger.js';
import { type Runtime, startRuntime } from '../../src/runtime.js';
import { bind, type Harness, startHarness, textOf } from '../helpers/bot-harness.js';
import { TEST_REDIS_URL, testRedis, uniquePrefix } from '../helpers/redis.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
});

async function get(port: number | undefined, path: string) {
  const res = await request(`http://127.0.0.1:${port}${path}`);
  return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
}

/** Asks /readyz until `done` holds of its answer (the gateway's part stands for a few seconds). */
async function readyUntil(port: number | undefined, done: (body: Record<string, unknown>) => boolean) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const ready = await get(port, '/readyz');
    if (done(ready.body) || Date.now() > deadline) return ready;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('Slack not reached', () => {
  it('names the host and the error code in the log, and /readyz says Slack is not reached (503)', async () => {
    const port = await closedPort();
    const lines: string[] = [];
    const prefix = uniquePrefix('e2e-readiness-unreachable');
    const config = loadConfig({
      SLACK_BOT_TOKEN: 'xoxb-standin',
      SLACK_SIGNING_SECRET: 'readiness-secret',
      SLACK_API_URL: `http://127.0.0.1:${port}/api/`,
      PORT: '0',
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: prefix,
      GATEWAY_BASE_URL: 'sandbox',
    });
    const runtime: Runtime = await startRuntime(
      config,
      createLogger({ level: 'info', write: (line) => lines.push(line) }),
    );
    cleanups.push(() => testRedis(prefix).cleanup());
    cleanups.push(() => runtime.stop(5_000));

    const ready = await readyUntil(runtime.port, (body) => /ECONNREFUSED/.test(String(body.slack)));
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ ok: false, redis: 'ok', gateway: 'ok' });
    expect(ready.body.slack).toBe(`not reached (auth.test has not answered: 127.0.0.1:${port} ECONNREFUSED)`);
    expect((await get(runtime.port, '/healthz')).status).toBe(200);
    const failed = lines.filter((line) => /http request failed|did not answer auth\.test/.test(line));
    expect(failed.length).toBeGreaterThan(0);
    for (const line of failed) {
      expect(line).toContain(`127.0.0.1:${port}`);
      expect(line).toContain('ECONNREFUSED');
    }
    expect(lines.join('\n')).toContain('check SLACK_API_URL');
  });

  it('answers 503 until auth.test has answered once, then 200; /healthz answers 200 throughout', async () => {
    const slack = await startFakeSlack();
    cleanups.push(() => slack.close());
    slack.simulate.outage(['auth.test'], 'error');
    const h = await startHarness('e2e-readiness-slack', {
      SLACK_API_URL: slack.apiUrl,
      SLACK_BOT_TOKEN: slack.botToken,
    });
    cleanups.push(() => h.close());
    const down = await readyUntil(h.runtime.port, (body) => /HTTP 503/.test(String(body.slack)));
    expect(down.status).toBe(503);
    expect(down.body.slack).toBe('not reached (auth.test has not answered: HTTP 503)');
    expect((await get(h.runtime.port, '/healthz')).status).toBe(200);
    slack.simulate.restore();
    const up = await readyUntil(h.runtime.port, (body) => body.ok === true);
    expect(up).toEqual({ status: 200, body: { ok: true, redis: 'ok', gateway: 'ok', slack: 'ok' } });
    // No GATEWAY_API_KEY with the in-process sandbox: its sample key that reaches everything.
    expect(new Set(h.sandbox.requests().map((r) => r.key))).toEqual(new Set(['sandbox-key']));
  });
});

describe('GATEWAY_API_KEY with the in-process sandbox', () => {
  let h: Harness | undefined;
  afterAll(async () => {
    await h?.close();
  });

  it('is refused when revoked: /readyz says the gateway refuses the key (401)', async () => {
    const revoked = await startHarness('e2e-readiness-revoked', { GATEWAY_API_KEY: 'sandbox-revoked' });
    cleanups.push(() => revoked.close());
    const ready = await readyUntil(revoked.runtime.port, (body) => body.slack === 'ok');
    expect(ready.status).toBe(503);
    expect(ready.body.gateway).toMatch(
      /^refusing the API key \(gateway_unauthorized \(HTTP 401\) at .*\): check GATEWAY_API_KEY$/,
    );
    expect(revoked.sandbox.requests().every((r) => r.key === 'sandbox-revoked' || r.key === 'unknown')).toBe(
      true,
    );
  });

  it('is the key every request carries: sandbox-readonly reads', async () => {
    h = await startHarness('e2e-readiness-readonly', { GATEWAY_API_KEY: 'sandbox-readonly' });
    await bind(h, 'harbor-law');
    await h.gateway('keywords limit=1');
    await h.message((m) => /keywords/.test(textOf(m)) && /harbor/i.test(textOf(m)));
    const keys = new Set(h.sandbox.requests().map((r) => r.key));
    expect([...keys]).toEqual(['sandbox-readonly']);
  });
});
