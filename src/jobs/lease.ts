import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * A Redis lease around a job's reconcile-and-POST (DESIGN §8): BullMQ is at-least-once and two runs of one
 * job can overlap (a blocked event loop, a stalled-job check), so only the holder of the lease may read the
 * ledger, decide and POST. `SET NX PX` with a random token; renewed while the POST runs; released only by
 * its holder. A holder that dies simply lets it expire.
 */

const RENEW = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`;
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

export interface Lease {
  release(): Promise<void>;
}

export function leaseKey(prefix: string, jobKey: string): string {
  return `${prefix}:lease:${jobKey}`;
}

/** Takes the lease or answers how many ms remain on the holder's (so the caller can come back then). */
export async function acquireLease(
  redis: Redis,
  key: string,
  ttlMs: number,
): Promise<{ lease: Lease } | { heldForMs: number }> {
  const token = randomUUID();
  const taken = await redis.set(key, token, 'PX', ttlMs, 'NX');
  if (taken !== 'OK') {
    const left = await redis.pttl(key);
    return { heldForMs: left > 0 ? left : 50 };
  }
  const timer = setInterval(
    () => {
      redis.eval(RENEW, 1, key, token, String(ttlMs)).catch(() => {
        // A missed renewal only shortens the lease; the next one (or expiry) settles it.
      });
    },
    Math.max(50, Math.floor(ttlMs / 3)),
  );
  timer.unref();
  return {
    lease: {
      release: async () => {
        clearInterval(timer);
        await redis.eval(RELEASE, 1, key, token);
      },
    },
  };
}
