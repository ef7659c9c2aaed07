import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SANDBOX_KEYS } from '../../src/gateway/spec.js';
import { bind, CHANNEL, type Harness, startHarness, textOf } from '../helpers/bot-harness.js';

/**
 * A gateway that is slow or hostile, through the whole bot: reads that drip (headers, then a byte every
 * 2 s), pages that never end, and a proxy that echoes the request's key into the rows. Every read ends at its
 * deadline (3 s here, GATEWAY_READ_TIMEOUT), commands that need no gateway never wait behind those that do,
 * and the person or channel is told what happened.
 */

let h: Harness;
const METRICS_TOKEN = 'metrics-token-for-the-e2e-test';

beforeAll(async () => {
  h = await startHarness('e2e-stuck-gateway', { GATEWAY_READ_TIMEOUT: '3s', METRICS_TOKEN });
  await bind(h, 'harbor-law');
});
afterAll(async () => {
  await h?.close();
});
beforeEach(() => {
  h.sandbox.reset();
});

const channelPosts = () => h.slack.messages(CHANNEL).length;

describe('a gateway that drips its answers', () => {
  it('ends a read at its deadline and tells the person the gateway took too long', async () => {
    h.sandbox.failNext('drip', { method: 'GET', resource: 'reviews', count: 10 });
    const asked = Date.now();
    await h.gateway('reviews limit=2');
    const reply = await h.ephemeral((m) => textOf(m).includes('took too long'));
    expect(Date.now() - asked).toBeLessThan(9_000);
    expect(textOf(reply)).toMatch(/try again/i);
    // The read was given up on (the caller went away), not answered: nothing posted in the channel.
    const dripped = h.sandbox.requests().filter((r) => r.fault === 'drip');
    expect(dripped.length).toBeGreaterThanOrEqual(1);
  });

  it('answers help, jobs and another resource while twenty reads of one resource drip', async () => {
    h.sandbox.failNext('drip', { method: 'GET', resource: 'keywords', count: 200 });
    for (let i = 0; i < 20; i++) await h.gateway(`get keywords limit=${i + 1}`);
    const asked = Date.now();
    await h.gateway('help');
    await h.ephemeral((m) => textOf(m).includes('/gateway keywords'));
    await h.gateway('jobs');
    await h.ephemeral((m) => /job/i.test(textOf(m)) && !textOf(m).includes('/gateway keywords'));
    expect(Date.now() - asked).toBeLessThan(2_500);
    const before = channelPosts();
    await h.gateway('get reviews limit=2');
    await h.slack.waitFor(
      () =>
        h.slack
          .messages(CHANNEL)
          .slice(before)
          .find((m) => m.text.includes('reviews')),
      { what: 'the page of reviews', timeoutMs: 5_000 },
    );
    expect(Date.now() - asked).toBeLessThan(5_000);
    // Every dripping read is answered in the end: each person is told, none is left waiting. Four read at a
    // time, 3 s each: those that could not start within 10 s are told the bot is busy instead, and never read.
    const told = () => {
      const texts = h.slack.ephemerals(CHANNEL, 'UMEMBER').map(textOf);
      return {
        tooLong: texts.filter((t) => t.includes('took too long')).length,
        busy: texts.filter((t) => t.includes('very busy')).length,
      };
    };
    await h.slack.waitFor(() => told().tooLong + told().busy >= 20, {
      what: 'twenty "took too long" or "very busy" answers',
      timeoutMs: 30_000,
    });
    const { tooLong, busy } = told();
    expect(tooLong + busy).toBe(20);
    expect(tooLong).toBeGreaterThanOrEqual(12);
    const keywordReads = h.sandbox.requests().filter((r) => r.method === 'GET' && r.resource === 'keywords');
    expect(keywordReads).toHaveLength(tooLong);
  }, 45_000);
});

describe('pages that never end', () => {
  it('stops a local sort at the cap and tells the person why', async () => {
    h.sandbox.setKnobs({ endlessRate: 1 });
    await h.gateway('reviews order=rating');
    const reply = await h.ephemeral((m) => textOf(m).includes('kept sending pages'));
    expect(textOf(reply)).toContain('gateway_scan_limit');
    const reads = h.sandbox.requests().filter((r) => r.method === 'GET' && r.resource === 'reviews');
    // The first page says how many rows there are; the walk stops one page past them, not at 5,000 rows.
    expect(reads.length).toBeLessThanOrEqual(3);
  });

  it('stops a digest scan at the cap and tells whoever asked, without filling memory', async () => {
    h.sandbox.setKnobs({ endlessRate: 1 });
    await h.gateway('digest now rankings');
    const reply = await h.ephemeral((m) => textOf(m).includes('could not be built'));
    expect(reply.text).toContain('gateway_scan_limit');
    const reads = h.sandbox.requests().filter((r) => r.method === 'GET' && r.resource === 'keywords');
    expect(reads.length).toBeLessThanOrEqual(3);
  }, 20_000);
});

describe('a proxy that echoes the request headers into the rows', () => {
  it('never shows the gateway key in a channel', async () => {
    h.sandbox.setKnobs({ echoKeyRate: 1 });
    const before = channelPosts();
    await h.gateway('get reviews limit=3');
    const page = await h.slack.waitFor(
      () =>
        h.slack
          .messages(CHANNEL)
          .slice(before)
          .find((m) => m.text.includes('reviews')),
      { what: 'the page of reviews' },
    );
    expect(textOf(page)).toContain('authorization: Bearer [redacted]');
    expect(textOf(page)).not.toContain(SANDBOX_KEYS.full);
  });
});

describe('/readyz and /metrics', () => {
  const url = (path: string) => `http://127.0.0.1:${h.runtime.port}${path}`;

  it('asks the gateway at most once however many probes arrive at once', async () => {
    await new Promise((r) => setTimeout(r, 3_100)); // past the cached answer of any earlier probe
    h.sandbox.reset();
    const answers = await Promise.all(
      Array.from({ length: 200 }, () => request(url('/readyz')).then((r) => r.body.json())),
    );
    expect(answers.every((a) => (a as { ok: boolean }).ok)).toBe(true);
    const discovery = h.sandbox.requests().filter((r) => r.method === 'GET' && r.resource === undefined);
    expect(discovery.length).toBeLessThanOrEqual(1);
  });

  it('answers /metrics only with the bearer token when METRICS_TOKEN is set', async () => {
    const open = await request(url('/metrics'));
    expect(open.statusCode).toBe(401);
    await open.body.dump();
    const wrong = await request(url('/metrics'), { headers: { authorization: 'Bearer not-the-token' } });
    expect(wrong.statusCode).toBe(401);
    await wrong.body.dump();
    const right = await request(url('/metrics'), { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(right.statusCode).toBe(200);
    expect(await right.body.text()).toContain('gateway_bot_');
    const health = await request(url('/healthz'));
    expect(health.statusCode).toBe(200);
    await health.body.dump();
  });
});
