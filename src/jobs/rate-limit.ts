import type { Redis } from '../redis/connection.js';
import { defineScript, runScript } from '../redis/scripts.js';
import { MAX_PRIORITY, PRIORITY_SCORE_FACTOR } from './bullmq-internals.js';

/**
 * Rate and fairness of the action queue.
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
 * The count reads BullMQ's own wait list and prioritized set (bullmq-internals.ts). The virtual clock stops
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
