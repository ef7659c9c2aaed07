import { Redis, type RedisOptions } from 'ioredis';

/**
 * Redis connections. Workers need `maxRetriesPerRequest: null` (BullMQ blocks on them); everything else
 * fails fast so a request handler can tell a person that Redis is down instead of hanging.
 */
export function createRedis(url: string, options: RedisOptions & { blocking?: boolean } = {}): Redis {
  const { blocking, ...rest } = options;
  return new Redis(url, {
    maxRetriesPerRequest: blocking ? null : 3,
    enableReadyCheck: true,
    lazyConnect: false,
    ...rest,
  });
}

/** Deletes every key under a prefix (tests clean up after themselves with it). */
export async function deleteByPrefix(redis: Redis, prefix: string): Promise<number> {
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length) deleted += await redis.unlink(...keys);
  } while (cursor !== '0');
  return deleted;
}
