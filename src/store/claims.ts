import type { Redis } from '../redis/connection.js';
import { defineScript, runScript } from '../redis/scripts.js';

/**
 * Claims in Redis, two kinds. Once: a request key (a redelivery is nothing). In flight: an action's fingerprint
 * while its job is queued or running (an identical new request is a duplicate, and is asked about).
 */

/**
 * Once: Slack redelivers slow requests and people double-click, so every command, click and submission claims
 * its dedupe key with `SET NX EX` before it does anything. The first claim wins; every later one within the TTL
 * is a redelivery.
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

/**
 * In flight: action requests by fingerprint (docs/gateway-api.md §4.4 rule 1). The duplicate guard looks for
 * an earlier record, and a record exists only once a job has run: two identical requests sent together would
 * both find none and both POST. So a request claims its fingerprint (`SET NX`) before it looks and keeps the
 * claim while its job is queued and running; an identical request meanwhile gets the duplicate question. The
 * worker gives the claim back when the job ends (after the ledger holds a success), so a later request finds
 * the ledger. A claim names its job, so only that job (or the request that took it) can give it back; it
 * expires anyway.
 */

export interface InFlight {
  jobKey: string;
  requestedBy: string;
  fields: Record<string, unknown>;
  /** Epoch ms when the request claimed it. */
  at: number;
}

export interface InFlightId {
  clientId: string;
  action: string;
  fingerprint: string;
}

/** A day, as the job-key claims: a job still queued after that is rare, and a lost release must not last. */
const TTL_SEC = 86_400;

export function inFlightKey(prefix: string, id: InFlightId): string {
  return `${prefix}:inflight:${id.clientId}:${id.action}:${id.fingerprint}`;
}

/** Claims the fingerprint for `claim.jobKey`; otherwise returns who holds it. */
export async function claimInFlight(
  redis: Redis,
  prefix: string,
  id: InFlightId,
  claim: InFlight,
): Promise<{ claimed: true } | { claimed: false; holder: InFlight | undefined }> {
  const key = inFlightKey(prefix, id);
  if ((await redis.set(key, JSON.stringify(claim), 'EX', TTL_SEC, 'NX')) === 'OK') return { claimed: true };
  return { claimed: false, holder: parse(await redis.get(key)) };
}

/** Deletes the claim only while `jobKey` holds it (a later request may have claimed it since). */
const RELEASE = defineScript(
  'gwInFlightRelease',
  1,
  `
local raw = redis.call('GET', KEYS[1])
if not raw then return 0 end
local ok, held = pcall(cjson.decode, raw)
if ok and type(held) == 'table' and held.jobKey == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`,
);

export async function releaseInFlight(redis: Redis, prefix: string, id: InFlightId, jobKey: string) {
  await runScript(redis, RELEASE, [inFlightKey(prefix, id)], [jobKey]);
}

function parse(raw: string | null): InFlight | undefined {
  if (!raw) return undefined;
  try {
    const value = JSON.parse(raw) as InFlight;
    return typeof value?.jobKey === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Gives back the claim a job holds, if it holds one (the worker calls this when the job ends). */
export async function releaseJobClaim(
  redis: Redis,
  prefix: string,
  data: { jobKey: string; clientId: string; action: string; holdsFingerprint?: string },
): Promise<void> {
  if (!data.holdsFingerprint) return;
  const id = { clientId: data.clientId, action: data.action, fingerprint: data.holdsFingerprint };
  await releaseInFlight(redis, prefix, id, data.jobKey);
}
