import { afterAll, describe, expect, it } from 'vitest';
import { DigestNowGuard } from '../../src/digests/now-guard.js';
import { testRedis, uniquePrefix } from '../helpers/redis.js';

/** The `digest now` claim in Redis: one holder per (channel, kind), taken over only from a job that is gone. */

const prefix = uniquePrefix('digest-now-guard');
const { redis, cleanup } = testRedis(prefix);
afterAll(cleanup);
const guard = new DigestNowGuard(redis, prefix);
const holder = (n: number, at = Date.now()) => ({ user: `U${n}`, jobId: `now-${n}`, at });

describe('the digest-now claim', () => {
  it('goes to exactly one of many concurrent requests while the first job is still being queued', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => guard.claim('C1', 'reviews', holder(i), async () => 'unknown')),
    );
    expect(answers.filter((a) => a.claimed)).toHaveLength(1);
  });

  it('is taken over from a job that has ended, or that the queue never knew after a while', async () => {
    await guard.claim('C2', 'reviews', holder(1), async () => 'alive');
    expect(await guard.claim('C2', 'reviews', holder(2), async () => 'alive')).toMatchObject({
      claimed: false,
      holder: { user: 'U1', jobId: 'now-1' },
    });
    expect((await guard.claim('C2', 'reviews', holder(3), async () => 'ended')).claimed).toBe(true);
    await guard.release('C2', 'reviews', 'now-3');
    await guard.claim('C2', 'reviews', holder(4, Date.now() - 60_000), async () => 'unknown');
    expect((await guard.claim('C2', 'reviews', holder(5), async () => 'unknown')).claimed).toBe(true);
  });

  it('is released only by its own job', async () => {
    await guard.claim('C3', 'rankings', holder(1), async () => 'alive');
    await guard.release('C3', 'rankings', 'now-other');
    expect((await guard.claim('C3', 'rankings', holder(2), async () => 'alive')).claimed).toBe(false);
    await guard.release('C3', 'rankings', 'now-1');
    expect((await guard.claim('C3', 'rankings', holder(2), async () => 'alive')).claimed).toBe(true);
  });
});
