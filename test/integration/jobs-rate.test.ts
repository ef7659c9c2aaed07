import { afterEach, describe, expect, it } from 'vitest';
import { pauseAllWorkers } from '../../src/jobs/rate-limit.js';
import { type JobsHarness, startJobsHarness } from '../fixtures/jobs-harness.js';

/** The POST rate is global across workers, and a busy client cannot starve the others. */

let h: JobsHarness | undefined;

afterEach(async () => {
  await h?.close();
  h = undefined;
});

const postTimes = (harness: JobsHarness) =>
  harness.sandbox
    .requests()
    .filter((r) => r.method === 'POST')
    .map((r) => ({ at: Date.parse(r.at), clientId: r.clientId }));

/**
 * Job starts per limiter window. BullMQ's limiter is a fixed window that opens at the first start after the
 * previous one closed, so windows are found greedily: one opens at the first start not yet counted and
 * holds every start within `ms` of it.
 */
function startsPerWindow(sorted: number[], ms: number): number[] {
  const counts: number[] = [];
  let open = Number.NEGATIVE_INFINITY;
  for (const t of sorted) {
    if (t >= open + ms) {
      open = t;
      counts.push(0);
    }
    counts[counts.length - 1]! += 1;
  }
  return counts;
}

describe('action rate limits', () => {
  it('two workers together stay within GATEWAY_ACTION_RATE', async () => {
    // Each POST takes a second: one worker (5 at a time) can start at most 2.5 jobs a window on its own, so the
    // other worker always gets a share, however late it starts; a limit per worker would let 8 start at once.
    h = await startJobsHarness('jobs-rate', { workers: false, knobs: { latencyMs: 1_000 } });
    const rate = { max: 4, windowMs: 500 };
    const done = [0, 0];
    for (const i of [0, 1]) {
      const w = h.startWorkers({ rate, concurrency: 5, actionTimeoutMs: 5_000 });
      w.worker.on('completed', () => {
        done[i] = (done[i] ?? 0) + 1;
      });
      await w.worker.waitUntilReady();
    }
    const jobs = Array.from({ length: 12 }, (_, i) =>
      h!.jobData('seo_audit', { url: `https://acmeplumbing.example/p${i}` }),
    );
    for (const job of jobs) await h.queue.enqueue(job);
    const starts: number[] = [];
    for (const job of jobs) starts.push((await h.settled(job.jobKey)).job.processedOn ?? 0);

    const times = postTimes(h).map((p) => p.at);
    expect(times).toHaveLength(12);
    // Three windows' worth of jobs: the last POST comes about two windows after the first (a limit per worker
    // would let 8 go per window and finish in about one).
    expect(times.at(-1)! - times[0]!).toBeGreaterThanOrEqual(1.5 * rate.windowMs);
    // The limiter admits at most `max` job starts per window, whichever worker starts them (a start is
    // stamped just before the worker asks Redis, hence the small margin).
    starts.sort((a, b) => a - b);
    // On a loaded machine a start's stamp can drift past a window's edge, so one window may show one extra;
    // a limit per worker would show twice `max`.
    const perWindow = startsPerWindow(starts, rate.windowMs - 30);
    expect(perWindow.reduce((a, b) => a + b, 0)).toBe(12);
    expect(Math.max(...perWindow)).toBeLessThanOrEqual(rate.max + 1);
    expect(done[0]! + done[1]!).toBe(12);
    expect(Math.min(done[0]!, done[1]!)).toBeGreaterThan(0);
  });

  it('interleaves a second client with a busy one instead of queueing it behind the backlog', async () => {
    h = await startJobsHarness('jobs-fair', { workers: false });
    const busy = Array.from({ length: 10 }, (_, i) =>
      h!.jobData('seo_audit', { url: `https://acmeplumbing.example/b${i}` }),
    );
    const other = Array.from({ length: 2 }, (_, i) =>
      h!.jobData(
        'seo_audit',
        { url: `https://brightdental.example/o${i}` },
        { clientId: 'bright-dental', clientLabel: 'Bright Dental' },
      ),
    );
    const aheadBusy: number[] = [];
    for (const job of busy) aheadBusy.push((await h.queue.enqueue(job)).ahead);
    const aheadOther: number[] = [];
    for (const job of other) aheadOther.push((await h.queue.enqueue(job)).ahead);
    expect(aheadBusy).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(aheadOther).toEqual([1, 3]);

    h.startWorkers({ rate: { max: 50, windowMs: 1_000 }, concurrency: 1 });
    for (const job of [...busy, ...other]) await h.settled(job.jobKey);
    const order = postTimes(h).map((p) => p.clientId);
    expect(order).toHaveLength(12);
    expect(order.slice(0, 4)).toEqual(['acme-plumbing', 'bright-dental', 'acme-plumbing', 'bright-dental']);
  });

  it('one gateway 500 holds only its own job; three in a row back every worker off', async () => {
    h = await startJobsHarness('jobs-pause', { workers: { backoffMs: 400, concurrency: 1 } });
    const slowed = `${h.prefix}:gateway:slowed`;
    h.sandbox.failNext('500', { method: 'POST', action: 'seo_audit' });
    const jobs = ['x', 'y'].map((p) => h!.jobData('seo_audit', { url: `https://acmeplumbing.example/${p}` }));
    for (const job of jobs) await h.queue.enqueue(job);
    for (const job of jobs) expect((await h.settled(job.jobKey)).state).toBe('completed');
    let posts = h.sandbox.requests().filter((r) => r.method === 'POST');
    expect(posts.map((r) => r.status)).toEqual([500, 200, 200]);
    expect(await h.redis.exists(slowed)).toBe(0);

    // Faults that persist: the third in a row pauses everyone for the backoff (400 ms), and says so in Redis.
    h.sandbox.failNext('500', { method: 'POST', action: 'seo_audit', count: 3 });
    const z = h.jobData('seo_audit', { url: 'https://acmeplumbing.example/z' });
    await h.queue.enqueue(z);
    const deadline = Date.now() + 5_000;
    let sawSlowed = false;
    while (Date.now() < deadline && !sawSlowed) {
      sawSlowed = (await h.redis.pttl(slowed)) > 0;
      if (!sawSlowed) await new Promise((r) => setTimeout(r, 10));
    }
    expect(sawSlowed).toBe(true);
    expect((await h.settled(z.jobKey)).state).toBe('completed');
    posts = h.sandbox
      .requests()
      .filter((r) => r.method === 'POST')
      .slice(3);
    expect(posts.map((r) => r.status)).toEqual([500, 500, 500, 200]);
    // The attempt after the third fault waited out the pause; a good answer ends the streak.
    expect(Date.parse(posts[3]!.at) - Date.parse(posts[2]!.at)).toBeGreaterThanOrEqual(350);
    expect(await h.redis.exists(slowed, `${h.prefix}:gateway:fault-streak`)).toBe(0);

    const limiter = `${h.prefix}:actions:limiter`;
    expect(await pauseAllWorkers(h.redis, limiter, 5_000)).toBe(5_000);
    expect(await pauseAllWorkers(h.redis, limiter, 100)).toBeGreaterThan(4_000);
    expect(await h.redis.pttl(limiter)).toBeGreaterThan(4_000);
    // A window with room left is marked full for the rest of it.
    await h.redis.set(limiter, '1', 'PX', 3_000);
    expect(await pauseAllWorkers(h.redis, limiter, 100)).toBeGreaterThan(2_000);
    expect(Number(await h.redis.get(limiter))).toBe(Number.MAX_SAFE_INTEGER);
  });
});
