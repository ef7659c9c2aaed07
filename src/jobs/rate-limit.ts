import type { Rate } from '../config.js';
import type { Redis } from '../redis/connection.js';
import { defineScript, runScript } from '../redis/scripts.js';
import type { JobWait } from '../views/job-status.js';

/**
 * The action queue's pace: its rate and fairness, the backoff of every worker once gateway faults persist, and the
 * wait a queued job is told, with what of BullMQ's own Redis structures these read and write.
 *
 * - The global rate (GATEWAY_ACTION_RATE) is BullMQ's Worker `limiter`: one Redis key per queue, so every
 *   worker process shares it.
 * - Per-client fairness is start-time fair queuing on BullMQ priorities: a job's priority is its client's
 *   next "virtual start", max(client's last + 1, queue's current + 1). A client that queues 500 jobs gets
 *   priorities n+1…n+500, a client arriving later slots in at the current position, so the two alternate
 *   instead of the newcomer waiting behind the whole backlog. Unlike delaying over-share jobs, this never
 *   spends a limiter slot on a job that then does not run, so the rate limit stays fully used.
 * - Backoff for everyone after a gateway 500 or a slow answer is `worker.rateLimit(ms)` (see action-worker).
 */

/**
 * BullMQ's internals: what the bot reads or writes of BullMQ's own Redis structures, all in this section (the
 * queue, the worker and job-run.ts take its keys from here). None of it is BullMQ's public API, so a BullMQ
 * upgrade checks this section (and the tests that use it: jobs-rate, jobs-queue, jobs-overlap).
 * Written against bullmq 6.7.0, pinned exactly (its `src/commands/*.lua` and `QueueKeys`);
 * test/integration/bullmq-contract.test.ts fails when an upgrade changes any of it.
 *
 * - Keys: `<prefix>:<queue>:wait` (a list), `:prioritized` (a sorted set), `:limiter` (the rate limiter's
 *   counter, whose TTL is what is left of the window) and `<prefix>:<queue>:<jobId>` (the job's hash; its
 *   `data` field is the job's data as JSON).
 * - A prioritized job's score is `priority × 2^32 + a counter`, so the jobs that start before priority `p`
 *   are those scoring below `(p + 1) × 2^32`.
 * - Priorities run from 1 to 2^21 − 1 (`MAX_PRIORITY`): BullMQ refuses 2^21 itself.
 */

export const MAX_PRIORITY = 2_097_151;

/** The factor of a prioritized job's score (see above). */
export const PRIORITY_SCORE_FACTOR = 4_294_967_296;

export function bullKeys(prefix: string, queue: string) {
  const base = `${prefix}:${queue}`;
  return {
    wait: `${base}:wait`,
    prioritized: `${base}:prioritized`,
    limiter: `${base}:limiter`,
    /** The hash a job is kept in. */
    job: (jobId: string) => `${base}:${jobId}`,
  };
}

/** The fairness clock forgets an idle queue after a day, so it restarts from 1. */
const CLOCK_TTL_SEC = 86_400;

export function fairKeys(prefix: string, queueName: string, clientId: string) {
  return {
    now: `${prefix}:fair:${queueName}:now`,
    last: `${prefix}:fair:${queueName}:last:${clientId}`,
  };
}

/**
 * Claims the job's dedupe key, assigns its fair priority, counts the jobs that will start before it and
 * indexes it under its channel, in one round trip. Returns claimed=0 for a duplicate (nothing else done).
 * The count reads BullMQ's own wait list and prioritized set (BullMQ's internals, above). The virtual clock stops
 * at BullMQ's highest priority (reached only by months of backlog).
 */
const ADMIT = defineScript(
  'gwAdmitJob',
  6,
  `
if redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2], 'NX') == false then return {0, 0, 0} end
local now = tonumber(redis.call('GET', KEYS[2]) or '0')
local last = tonumber(redis.call('GET', KEYS[3]) or '0')
local p = math.max(last + 1, now + 1)
if p > tonumber(ARGV[3]) then p = tonumber(ARGV[3]) end
redis.call('SET', KEYS[3], p, 'EX', ARGV[4])
-- Jobs of a lower or the same priority were queued earlier, so they start first.
local ahead = redis.call('ZCOUNT', KEYS[4], '-inf', '(' .. string.format('%.0f', (p + 1) * tonumber(ARGV[7])))
ahead = ahead + redis.call('LLEN', KEYS[5])
redis.call('ZADD', KEYS[6], ARGV[1], ARGV[5])
redis.call('ZREMRANGEBYRANK', KEYS[6], 0, -101)
redis.call('EXPIRE', KEYS[6], ARGV[6])
return {1, p, ahead}
`,
);

export interface AdmitKeys {
  dedupe: string;
  fairNow: string;
  fairLast: string;
  prioritized: string;
  wait: string;
  channelIndex: string;
}

export interface Admission {
  claimed: boolean;
  priority: number;
  ahead: number;
}

export async function admitJob(
  redis: Redis,
  keys: AdmitKeys,
  args: { jobKey: string; enqueuedAt: number; dedupeTtlSec: number; indexTtlSec: number },
): Promise<Admission> {
  const answer = (await runScript(
    redis,
    ADMIT,
    [keys.dedupe, keys.fairNow, keys.fairLast, keys.prioritized, keys.wait, keys.channelIndex],
    [
      args.enqueuedAt,
      args.dedupeTtlSec,
      MAX_PRIORITY,
      CLOCK_TTL_SEC,
      args.jobKey,
      args.indexTtlSec,
      PRIORITY_SCORE_FACTOR,
    ],
  )) as [number, number, number];
  return { claimed: answer[0] === 1, priority: answer[1], ahead: answer[2] };
}

const ADVANCE = defineScript(
  'gwAdvanceFairClock',
  1,
  `
local now = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > now then redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2]) end
return 1
`,
);

/** Moves the fairness clock to a job that starts (never backwards). */
export async function advanceFairClock(redis: Redis, nowKey: string, priority: number): Promise<void> {
  if (!priority) return;
  await runScript(redis, ADVANCE, [nowKey], [priority, CLOCK_TTL_SEC]);
}

/** Backoff for everyone after the n-th consecutive gateway fault: doubling from `baseMs`, capped. */
export function backoffMs(baseMs: number, consecutive: number, capMs = 60_000): number {
  return Math.min(capMs, baseMs * 2 ** Math.max(0, consecutive - 1));
}

/**
 * Pauses every worker for at least `ms`: the limiter key is marked full (as `worker.rateLimit(ms)` does) for
 * max(ms, what is left of the current window). Unlike rateLimit it never SHORTENS the window: rateLimit(20)
 * in a 60 s window would open a fresh window, and a fresh full quota, 20 ms later.
 */
const PAUSE = defineScript(
  'gwPauseAllWorkers',
  1,
  `
local left = redis.call('PTTL', KEYS[1])
local ms = math.max(tonumber(ARGV[1]), left)
redis.call('SET', KEYS[1], ARGV[2], 'PX', ms)
return ms
`,
);

export async function pauseAllWorkers(redis: Redis, limiterKey: string, ms: number): Promise<number> {
  const pause = String(Math.max(1, Math.round(ms)));
  return Number(await runScript(redis, PAUSE, [limiterKey], [pause, Number.MAX_SAFE_INTEGER]));
}

/**
 * Gateway faults in a row, counted across every worker process (docs/gateway-api.md §7, §8). One 500 or
 * timeout is that request's own business: its job reconciles and retries with jittered backoff while every
 * other job runs on. Only faults that persist (`threshold` in a row, with no good answer between them) mean
 * the gateway is struggling: then the whole queue slows down, for `baseMs` doubling with each further fault,
 * and the waiting messages say so (the `slowed` key, read by `estimateWait` below).
 */

export interface FaultStreak {
  /**
   * Counts a fault. When faults persist, `pause(ms)` slows every worker and answers how long it holds them
   * (the limiter may already hold them longer); the waiting messages say "slowed" for that long. 0: no pause.
   */
  fault(pause: (ms: number) => Promise<number>): Promise<{ streak: number; pausedMs: number }>;
  /** A good answer ends the streak. */
  clear(): Promise<void>;
  /** The gateway answered 429: every worker was paused for `ms`; the waiting messages say why. */
  rateLimited(ms: number): Promise<void>;
}

/** A streak forgets itself after a quiet spell with neither faults nor good answers. */
const STREAK_TTL_SEC = 600;

function faultKeys(prefix: string) {
  return { streak: `${prefix}:gateway:fault-streak`, slowed: `${prefix}:gateway:slowed` };
}

export function faultStreak(
  redis: Redis,
  prefix: string,
  options: { baseMs: number; threshold?: number; capMs?: number },
): FaultStreak {
  const keys = faultKeys(prefix);
  const threshold = options.threshold ?? 3;
  return {
    async fault(pause) {
      const [[, count]] = (await redis
        .multi()
        .incr(keys.streak)
        .expire(keys.streak, STREAK_TTL_SEC)
        .exec()) as [[unknown, number], unknown];
      const streak = Number(count);
      if (streak < threshold) return { streak, pausedMs: 0 };
      const pausedMs = await pause(backoffMs(options.baseMs, streak - threshold + 1, options.capMs));
      await redis.set(keys.slowed, 'faults', 'PX', Math.max(1, Math.round(pausedMs)));
      return { streak, pausedMs };
    },
    async clear() {
      await redis.del(keys.streak, keys.slowed);
    },
    async rateLimited(ms) {
      await redis.set(keys.slowed, 'rate-limited', 'PX', Math.max(1, Math.round(ms)));
    },
  };
}

/**
 * About how long a queued job waits, and why (a queued message says "queued: 10 actions a minute, 3 ahead,
 * about 40 s"). Read from BullMQ's limiter key (how many POSTs the current window has used and how long it has
 * left; a pause after persistent gateway faults fills it, see `pauseAllWorkers`) and the fault streak's `slowed`
 * key. An estimate: jobs that finish early or fail change it, so messages say "about".
 */
export async function estimateWait(
  redis: Redis,
  prefix: string,
  queue: string,
  rate: Rate | undefined,
  ahead: number,
): Promise<JobWait> {
  const limiter = bullKeys(prefix, queue).limiter;
  const slowedKey = faultKeys(prefix).slowed;
  const [[, used], [, left], [, slowedLeft], [, why]] = (await redis
    .multi()
    .get(limiter)
    .pttl(limiter)
    .pttl(slowedKey)
    .get(slowedKey)
    .exec()) as [[unknown, string | null], [unknown, number], [unknown, number], [unknown, string | null]];
  const slowed: JobWait['slowed'] =
    Number(slowedLeft) > 0 ? (why === 'rate-limited' ? 'rate-limited' : 'faults') : undefined;
  if (!rate) return { ahead, ...(slowed ? { slowed, ms: Number(slowedLeft) } : {}) };
  const windowLeft = Math.max(0, Number(left));
  const usedNow = windowLeft > 0 ? Number(used ?? 0) : 0;
  const freeNow = Math.max(0, rate.max - usedNow);
  let ms = 0;
  if (ahead >= freeNow) {
    const later = ahead - freeNow;
    ms = (windowLeft || rate.windowMs) + Math.floor(later / rate.max) * rate.windowMs;
  }
  return { ahead, ms, rate, ...(slowed ? { slowed } : {}) };
}
