import type { Redis } from '../redis/connection.js';
import { defineScript, runScript } from '../redis/scripts.js';
import type { DigestKind } from './filters.js';

/**
 * Limits on `digest now`, which is a full scan charged to the agency key: one waiting or running `now` per
 * (channel, kind), and a cooldown per (person, channel, kind), so asking for the reviews and then the rankings,
 * or for another channel's digest, is not held up (admins are not held to it; the command decides who is).
 *
 * The (channel, kind) claim names the job that holds it. A claim is not released when its job ends (the worker
 * would have to know about it); instead the next request asks whether the holder is still waiting or running,
 * and takes the claim over from a job that is not. The claim's TTL only bounds a claim whose job vanished.
 */

const CLAIM_TTL_MS = 3_600_000;

/**
 * KEYS: the claim. ARGV: the new holder, TTL (ms), the holder it may replace ('' for none).
 * Answer: nil when the new holder has the claim, else the holder that keeps it.
 */
const CLAIM = defineScript(
  'gwDigestNowClaim',
  1,
  `
local held = redis.call('GET', KEYS[1])
if held and held ~= ARGV[3] then return held end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false
`,
);

/** KEYS: the claim. ARGV: the job id whose claim it must still be. */
const RELEASE = defineScript(
  'gwDigestNowRelease',
  1,
  `
local held = redis.call('GET', KEYS[1])
if held and cjson.decode(held).jobId == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`,
);

/** Who asked for the `now` that holds a (channel, kind), its job, and when it was claimed (ms). */
export interface NowHolder {
  user: string;
  jobId: string;
  at: number;
}

/**
 * A claim is taken just before its job is queued: for this long a holder whose job is not known yet is
 * still on its way (it is being queued), not gone.
 */
const QUEUEING_MS = 30_000;

function decode(value: string): NowHolder {
  try {
    const h = JSON.parse(value) as Partial<NowHolder>;
    return { user: String(h.user ?? ''), jobId: String(h.jobId ?? ''), at: Number(h.at ?? 0) };
  } catch {
    return { user: '', jobId: '', at: 0 };
  }
}

export class DigestNowGuard {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  /**
   * Claims (channel, kind) for a new `now` job, or answers the holder while that one is still on its way
   * (`alive`: the job is waiting, delayed or running; `unknown`: not known to the queue). Of concurrent
   * requests exactly one gets the claim.
   */
  async claim(
    channel: string,
    kind: DigestKind,
    holder: NowHolder,
    state: (jobId: string) => Promise<'alive' | 'ended' | 'unknown'>,
  ): Promise<{ claimed: true } | { claimed: false; holder: NowHolder }> {
    const key = `${this.prefix}:digest-now:${channel}:${kind}`;
    const take = async (replace: string) =>
      (await runScript(this.redis, CLAIM, [key], [JSON.stringify(holder), CLAIM_TTL_MS, replace])) as
        | string
        | null;
    const held = await take('');
    if (held === null) return { claimed: true };
    const current = decode(held);
    const now = await state(current.jobId);
    if (now === 'alive' || (now === 'unknown' && Date.now() - current.at < QUEUEING_MS))
      return { claimed: false, holder: current };
    // The holder has ended: take the claim over, unless another request did so since the look (it is fresh).
    const after = await take(held);
    return after === null ? { claimed: true } : { claimed: false, holder: decode(after) };
  }

  /** Gives the claim back (its job could not be queued, or has read everything), if it is still that job's. */
  async release(channel: string, kind: DigestKind, jobId: string): Promise<void> {
    await runScript(this.redis, RELEASE, [`${this.prefix}:digest-now:${channel}:${kind}`], [jobId]);
  }

  #cooldownKey(user: string, channel: string, kind: DigestKind): string {
    return `${this.prefix}:digest-now-cooldown:${user}:${channel}:${kind}`;
  }

  /**
   * Starts a person's cooldown for one channel's digest of one kind, or answers how many ms are left of the
   * running one (at least 1: a key that expired between the two calls still answers "not started").
   */
  async cooldown(
    user: string,
    channel: string,
    kind: DigestKind,
    ms: number,
  ): Promise<{ started: true } | { started: false; leftMs: number }> {
    const key = this.#cooldownKey(user, channel, kind);
    if ((await this.redis.set(key, '1', 'PX', ms, 'NX')) === 'OK') return { started: true };
    const left = await this.redis.pttl(key);
    return { started: false, leftMs: Math.max(left, 1) };
  }

  /** Ends a person's cooldown early (their request was not queued after all). */
  async endCooldown(user: string, channel: string, kind: DigestKind): Promise<void> {
    await this.redis.del(this.#cooldownKey(user, channel, kind));
  }
}
