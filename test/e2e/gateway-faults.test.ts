import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, bind, type Harness, startHarness, textOf } from '../helpers/bot-harness.js';

/**
 * One gateway 500 is its own job's business: that job retries with jittered backoff (docs/gateway-api.md §7)
 * while every other channel's jobs run on. Only faults that persist slow the whole queue, and the waiting
 * messages say so. The rate is production's (10 a minute) and the queue-wide pause long (20 s, and at least
 * the rest of the rate window: a pause never hands out a fresh window early), so a stall would show.
 */

let h: Harness;
const OTHER = 'CDENTAL';

beforeAll(async () => {
  h = await startHarness(
    'e2e-gateway-faults',
    { GATEWAY_ACTION_RATE: '10/60s' },
    { worker: { backoffMs: 20_000 } },
  );
  await bind(h, 'harbor-law');
  await bind(h, 'bright-dental', OTHER);
});
afterAll(async () => {
  await h?.close();
});

const posts = (action: string) => h.posts(action);
const slowed = async () => (await h.runtime.services.redis.pttl(`${h.prefix}:gateway:slowed`)) > 0;

/** Until the queue is slowed (a Redis read, so not the stand-in's waitFor, whose probes are synchronous). */
async function untilSlowed(timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await slowed())) {
    if (Date.now() > deadline) throw new Error(`the queue was not slowed within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('gateway faults', () => {
  it('one 500 does not stall another channel: its job retries on its own and ends done', async () => {
    h.sandbox.failNext('500', { method: 'POST', action: 'seo_audit' });
    await h.gateway('audit https://harbor-law.example/one-fault', { user: ADMIN });
    await h.slack.waitFor(() => posts('seo_audit')[0], { what: 'the failing audit POST' });
    const asked = Date.now();
    await h.gateway('index https://brightdental.example/right-away', { user: ADMIN, channel: OTHER });
    await h.slack.waitFor(() => posts('index_url')[0], {
      what: 'the other channel’s POST',
      timeoutMs: 15_000,
    });
    // Under a second here, up to 0.8 s under load; a stalled queue would hold it for the 20 s pause.
    expect(Date.now() - asked).toBeLessThan(10_000);
    const done = await h.message((m) => m.text.includes('/one-fault') && m.text.includes('— done'));
    expect(done.text).toMatch(/score \d+\/100/);
    expect(posts('seo_audit')).toHaveLength(2);
    expect(await slowed()).toBe(false);
  });

  it('faults that persist slow the whole queue, and a waiting job’s message says so', async () => {
    h.sandbox.failNext('500', { method: 'POST', action: 'seo_audit', count: 3 });
    await h.gateway('audit https://harbor-law.example/many-faults', { user: ADMIN });
    await h.slack.waitFor(() => (posts('seo_audit').length >= 5 ? true : undefined), {
      what: 'three failing audit POSTs',
      timeoutMs: 10_000,
    });
    await untilSlowed();
    const before = posts('index_url').length;
    await h.gateway('index https://brightdental.example/waits', { user: ADMIN, channel: OTHER });
    const waiting = await h.message((m) => m.text.includes('/waits') && m.text.includes('queued'), OTHER);
    expect(waiting.text).toMatch(
      /— queued: the gateway keeps failing, so the queue is slowed, about \d+ (s|min)$/,
    );
    expect(textOf(waiting)).toContain('job_cancel');
    await new Promise((r) => setTimeout(r, 500));
    expect(posts('index_url').length).toBe(before);
    // Cancelled, so the file ends without sitting out the pause.
    await h.driver.click(waiting, { actionId: 'job_cancel' }, { user: ADMIN });
    await h.message((m) => m.text.includes('/waits') && m.text.includes('cancelled'), OTHER);
  });
});
