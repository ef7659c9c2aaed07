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

describe('health, readiness and metrics', () => {
  it('is healthy and ready when Redis and the gateway answer', async () => {
    expect(await get('/healthz')).toMatchObject({ status: 200 });
    const ready = await get('/readyz');
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.body)).toMatchObject({ ok: true, redis: 'ok', gateway: 'ok' });
  });

  it('stays healthy but not ready while the gateway fails, and still tells people', async () => {
    h.sandbox.setKnobs({ errorRate: 1 });
    try {
      expect((await get('/healthz')).status).toBe(200);
      const ready = await get('/readyz');
      expect(ready.status).toBe(503);
      expect(JSON.parse(ready.body)).toMatchObject({ ok: false, redis: 'ok' });
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
