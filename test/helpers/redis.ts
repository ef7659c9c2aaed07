import { randomUUID } from 'node:crypto';
import type { Redis } from '../../src/redis/connection.js';
import { createRedis, deleteByPrefix } from '../../src/redis/connection.js';

export const TEST_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A unique key prefix per test file, so files run side by side against one Redis. */
export function uniquePrefix(name: string): string {
  return `test-${name}-${randomUUID().slice(0, 8)}`;
}

/** A Redis connection for a test file, and a cleanup that deletes the file's keys and closes it. */
export function testRedis(prefix: string): { redis: Redis; cleanup: () => Promise<void> } {
  const redis = createRedis(TEST_REDIS_URL);
  return {
    redis,
    cleanup: async () => {
      await deleteByPrefix(redis, prefix);
      await redis.quit();
    },
  };
}
