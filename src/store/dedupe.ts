import type { Redis } from '../redis/connection.js';

/**
 * One-time claims: Slack redelivers slow requests and people double-click, so every command,
 * click and submission claims its dedupe key with `SET NX EX` before it does anything. The first claim wins;
 * every later one within the TTL is a duplicate.
 */

export function dedupeKey(prefix: string, key: string): string {
  return `${prefix}:dedupe:${key}`;
}

/** True for the first claim of `key` within `ttlSec`, false for every repeat. */
export async function claimOnce(redis: Redis, prefix: string, key: string, ttlSec: number): Promise<boolean> {
  const ttl = Math.max(1, Math.ceil(ttlSec));
  const answer = await redis.set(dedupeKey(prefix, key), String(Date.now()), 'EX', ttl, 'NX');
  return answer === 'OK';
}

/**
 * `claimOnce` and the read of one hash (a command's channel binding), both sent at once: one round trip's wait
 * instead of two, whichever form Redis takes (on a Cluster the two keys live in different slots). Not an ioredis
 * pipeline: in the ack bench one cost more CPU than the two commands it carried, and the acks waited for it.
 * The hash is empty when it does not exist.
 */
export async function claimOnceReading(
  redis: Redis,
  prefix: string,
  key: string,
  ttlSec: number,
  hashKey: string,
): Promise<{ claimed: boolean; hash: Record<string, string> }> {
  const [claimed, hash] = await Promise.all([claimOnce(redis, prefix, key, ttlSec), redis.hgetall(hashKey)]);
  return { claimed, hash };
}

/** Gives a claim back (the work it guarded could not even be queued, so a redelivery may try again). */
export async function releaseClaim(redis: Redis, prefix: string, key: string): Promise<void> {
  await redis.del(dedupeKey(prefix, key));
}
