import { afterAll, describe, expect, it } from 'vitest';
import { DigestNowGuard } from '../../src/digests/now-guard.js';
import { timeLeft } from '../../src/views/digest-common.js';
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

  it('holds a cooldown per person, channel and kind, and says what is left of it as it is', async () => {
    expect(await guard.cooldown('U1', 'C4', 'reviews', 300_000)).toEqual({ started: true });
    expect(await guard.cooldown('U1', 'C4', 'rankings', 300_000)).toEqual({ started: true });
    expect(await guard.cooldown('U1', 'C5', 'reviews', 300_000)).toEqual({ started: true });
    expect(await guard.cooldown('U2', 'C4', 'reviews', 300_000)).toEqual({ started: true });
    const held = await guard.cooldown('U1', 'C4', 'reviews', 300_000);
    expect(held.started).toBe(false);
    if (!held.started) expect(timeLeft(held.leftMs)).toMatch(/^(5 min|4 min \d{1,2} s)$/);
    await guard.cooldown('U1', 'C6', 'reviews', 1_000);
    const brief = await guard.cooldown('U1', 'C6', 'reviews', 1_000);
    if (brief.started) return; // a loaded machine took the second past the cooldown: nothing to word
    expect(timeLeft(brief.leftMs)).toBe('1 s');
    await guard.endCooldown('U1', 'C4', 'reviews');
    expect((await guard.cooldown('U1', 'C4', 'reviews', 300_000)).started).toBe(true);
  });
});

describe('the time left of a cooldown', () => {
  it('is said to the second, never rounded up to a larger unit', () => {
    expect(timeLeft(1)).toBe('1 s');
    expect(timeLeft(1_000)).toBe('1 s');
    expect(timeLeft(59_001)).toBe('1 min');
    expect(timeLeft(90_000)).toBe('1 min 30 s');
    expect(timeLeft(300_000)).toBe('5 min');
    expect(timeLeft(3_600_000)).toBe('1 h');
    expect(timeLeft(3_900_000)).toBe('1 h 5 min');
  });
});
