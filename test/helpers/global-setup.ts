import { ensureRedis } from '../../src/local/redis-local.js';

/** Makes sure a Redis answers for the whole run; test files read its URL from REDIS_URL. */
export default async function setup(): Promise<() => Promise<void>> {
  const redis = await ensureRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  process.env.REDIS_URL = redis.url;
  return () => redis.stop();
}
