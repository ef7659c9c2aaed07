import { randomUUID } from 'node:crypto';
import type { Redis } from '../redis/connection.js';
import { defineScript, runScript } from '../redis/scripts.js';

/**
 * A Redis lease around a job's reconcile-and-POST: BullMQ is at-least-once and two runs of one
 * job can overlap (a blocked event loop, a stalled-job check), so only the holder of the lease may read the
 * ledger, decide and POST. `SET NX PX` with a random token; renewed while the POST runs; released only by
 * its holder. A holder that dies simply lets it expire.
 *
 * A lease can also run out under a holder that is still alive (its event loop blocked past the TTL, renewals
 * lost). So the "posting" checkpoint is written through `writeIfHeld`: the write and the check that the lease
 * is still ours are one Redis script, and a holder that lost its lease neither records the checkpoint nor
 * sends the POST.
 */

const RENEW = defineScript(
  'gwLeaseRenew',
  1,
  `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`,
);
const RELEASE = defineScript(
  'gwLeaseRelease',
  1,
  `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`,
);
const WRITE_IF_HELD = defineScript(
  'gwLeaseWriteIfHeld',
  2,
  `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[3], ARGV[4])
return 1
`,
);

export interface Lease {
  /** Sets `field` of the hash at `key` only while the lease is still ours (and renews it); false when lost. */
  writeIfHeld(key: string, field: string, value: string): Promise<boolean>;
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
      runScript(redis, RENEW, [key], [token, ttlMs]).catch(() => {
        // A missed renewal only shortens the lease; the next one (or expiry) settles it.
      });
    },
    Math.max(50, Math.floor(ttlMs / 3)),
  );
  timer.unref();
  return {
    lease: {
      writeIfHeld: async (hashKey, field, value) =>
        Number(await runScript(redis, WRITE_IF_HELD, [key, hashKey], [token, ttlMs, field, value])) === 1,
      release: async () => {
        clearInterval(timer);
        await runScript(redis, RELEASE, [key], [token]);
      },
    },
  };
}
