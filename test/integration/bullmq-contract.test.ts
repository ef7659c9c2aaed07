import { Queue, Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bullKeys, MAX_PRIORITY, PRIORITY_SCORE_FACTOR } from '../../src/jobs/rate-limit.js';
import { createRedis } from '../../src/redis/connection.js';
import { TEST_REDIS_URL, testRedis, uniquePrefix } from '../helpers/redis.js';

/**
 * What the bot reads or writes of BullMQ's own Redis structures (the BullMQ section of src/jobs/rate-limit.ts) is
 * no public API. This file pins each assumption against the installed BullMQ, so an upgrade that changes one
 * fails here and not in a production queue.
 */

const prefix = uniquePrefix('bullmq-contract');
const { redis, cleanup } = testRedis(prefix);
const QUEUE = 'contract';
const keys = bullKeys(prefix, QUEUE);
let queue: Queue;

beforeAll(() => {
  queue = new Queue(QUEUE, { connection: redis, prefix });
});
afterAll(async () => {
  await queue.close();
  await cleanup();
});

describe('BullMQ internals the bot relies on', () => {
  it('is the exact BullMQ version the internals were checked against', async () => {
    const { default: pkg } = await import('bullmq/package.json', { with: { type: 'json' } });
    expect(pkg.version).toBe('6.7.0');
  });

  it('keeps a waiting job id in the wait list and its data as JSON in the job hash', async () => {
    const job = await queue.add('plain', { url: 'https://example.com' }, { jobId: 'plain-1' });
    expect(await redis.lrange(keys.wait, 0, -1)).toContain(job.id);
    expect(JSON.parse((await redis.hget(keys.job('plain-1'), 'data')) ?? 'null')).toEqual({
      url: 'https://example.com',
    });
  });

  it('scores a prioritized job priority × 2^32 plus a counter, below (priority + 1) × 2^32', async () => {
    await queue.add('low', {}, { jobId: 'prio-7', priority: 7 });
    const score = Number(await redis.zscore(keys.prioritized, 'prio-7'));
    expect(score).toBeGreaterThanOrEqual(7 * PRIORITY_SCORE_FACTOR);
    expect(score).toBeLessThan(8 * PRIORITY_SCORE_FACTOR);
  });

  it('accepts priorities up to MAX_PRIORITY and refuses one above', async () => {
    await expect(queue.add('max', {}, { jobId: 'prio-max', priority: MAX_PRIORITY })).resolves.toBeDefined();
    await expect(queue.add('over', {}, { jobId: 'prio-over', priority: MAX_PRIORITY + 1 })).rejects.toThrow();
  });

  it('counts a limiter window in the limiter key, whose TTL is what is left of the window', async () => {
    await queue.obliterate({ force: true });
    const connection = createRedis(TEST_REDIS_URL, { blocking: true });
    const worker = new Worker(QUEUE, async () => 'done', {
      connection,
      prefix,
      limiter: { max: 5, duration: 30_000 },
    });
    try {
      const done = new Promise<void>((resolve) => worker.once('completed', () => resolve()));
      await queue.add('limited', {}, { jobId: 'limited-1' });
      await done;
      expect(Number(await redis.get(keys.limiter))).toBe(1);
      const ttl = await redis.pttl(keys.limiter);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(30_000);
    } finally {
      await worker.close();
      await connection.quit();
    }
  });
});
