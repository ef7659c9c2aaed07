import { isCluster, type Redis } from '../redis.js';
import { defineScript, runScript } from '../redis-scripts.js';

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

/** claimOnce's SET NX EX and the hash's HGETALL in one script: [1 when claimed else 0, the hash as a flat list]. */
const CLAIM_READING = defineScript(
  'gwClaimReading',
  2,
  `local claimed = redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2], 'NX')
return {claimed and 1 or 0, redis.call('HGETALL', KEYS[2])}`,
);

/**
 * `claimOnce` and the read of one hash (a command's channel binding) in one round trip. On one Redis (Sentinel
 * too) one script: one command written and one answer read, where two commands cost the ack bench's web process
 * a write and a read each. On a Cluster the two keys may live in different slots (with the bot's hash-tagged
 * prefix they do not, but the claim must not depend on it), so both commands are sent at once instead. Not an
 * ioredis pipeline: in the ack bench one cost more CPU than the two commands it carried. The hash is empty when
 * it does not exist.
 */
export async function claimOnceReading(
  redis: Redis,
  prefix: string,
  key: string,
  ttlSec: number,
  hashKey: string,
): Promise<{ claimed: boolean; hash: Record<string, string> }> {
  if (isCluster(redis)) {
    const [claimed, hash] = await Promise.all([
      claimOnce(redis, prefix, key, ttlSec),
      redis.hgetall(hashKey),
    ]);
    return { claimed, hash };
  }
  const ttl = Math.max(1, Math.ceil(ttlSec));
  const [claimed, flat] = (await runScript(
    redis,
    CLAIM_READING,
    [dedupeKey(prefix, key), hashKey],
    [String(Date.now()), ttl],
  )) as [number, string[]];
  const hash: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) hash[flat[i] as string] = flat[i + 1] as string;
  return { claimed: claimed === 1, hash };
}

/** Gives a claim back (the work it guarded could not even be queued, so a redelivery may try again). */
export async function releaseClaim(redis: Redis, prefix: string, key: string): Promise<void> {
  await redis.del(dedupeKey(prefix, key));
}
