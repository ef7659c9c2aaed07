import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness, textOf } from '../helpers/bot-harness.js';

let h: Harness;
const get = async (path: string) => {
  const res = await request(`http://127.0.0.1:${h.runtime.port}${path}`);
  return { status: res.statusCode, body: await res.body.text() };
};

beforeAll(async () => {
  h = await startHarness('e2e-health');
});
afterAll(async () => {
  await h?.close();
});

/** Probes /readyz until it answers 503 (its answer about the gateway is cached for a few seconds). */
async function untilNotReady(): Promise<{ status: number; body: string }> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const ready = await get('/readyz');
    if (ready.status === 503 || Date.now() > deadline) return ready;
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('health, readiness and metrics', () => {
  it('is healthy and ready when Redis, the gateway and Slack answer', async () => {
    expect(await get('/healthz')).toMatchObject({ status: 200 });
    // Readiness waits for Slack's first answer to auth.test, asked as the bot starts: a moment at most here.
    let ready = await get('/readyz');
    for (let i = 0; i < 20 && ready.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 100));
      ready = await get('/readyz');
    }
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.body)).toEqual({ ok: true, redis: 'ok', gateway: 'ok', slack: 'ok' });
  });

  it('asks the gateway at most once however often /readyz is probed within a few seconds', async () => {
    const discoveries = async () => {
      const res = await request(`${h.sandbox.origin}/__sandbox/counts`);
      const { requests } = (await res.body.json()) as {
        requests: Array<{ method: string; resource?: string }>;
      };
      return requests.filter((r) => r.method === 'GET' && r.resource === undefined).length;
    };
    const before = await discoveries();
    for (let i = 0; i < 20; i++) expect((await get('/readyz')).status).toBe(200);
    expect((await discoveries()) - before).toBeLessThanOrEqual(1);
  });

  it('stays healthy but not ready while the gateway fails, says so without its address, and still tells people', async () => {
    h.sandbox.setKnobs({ errorRate: 1 });
    try {
      expect((await get('/healthz')).status).toBe(200);
      // The last answer about the gateway stands for a few seconds; then the failure shows.
      const ready = await untilNotReady();
      expect(ready.status).toBe(503);
      const body = JSON.parse(ready.body);
      expect(body).toMatchObject({ ok: false, redis: 'ok' });
      expect(body.gateway).toMatch(
        /^not answering \((gateway_server_error \(HTTP 500\)|check_timeout) at \d{4}-/,
      );
      expect(ready.body).not.toContain('127.0.0.1');
      expect(ready.body).not.toContain('http');
      await h.gateway('help');
      await h.ephemeral((m) => textOf(m).includes('/gateway keywords'));
    } finally {
      h.sandbox.setKnobs({ errorRate: 0 });
    }
  });

  it('counts commands in Prometheus text', async () => {
    await h.gateway('nonsense');
    await h.ephemeral((m) => textOf(m).includes('nonsense'));
    const metrics = await get('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.body).toMatch(/gateway_bot_commands_total\{command="help",outcome="ok"\} [1-9]/);
    expect(metrics.body).toMatch(/gateway_bot_commands_total\{command="unknown",outcome="error"\} 1/);
    expect(metrics.body).not.toContain('nonsense');
    expect(metrics.body).toContain('# TYPE gateway_bot_queue_waiting_jobs gauge');
  });
});
