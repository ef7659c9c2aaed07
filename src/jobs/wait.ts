import type { Rate } from '../config.js';
import type { Redis } from '../redis/connection.js';
import type { JobWait } from '../views/job-status.js';
import { bullKeys } from './bullmq-internals.js';
import { faultKeys } from './fault-streak.js';

/**
 * About how long a queued job waits, and why (a queued message says "queued: 10 actions a minute, 3 ahead,
 * about 40 s"). Read from BullMQ's limiter key (how many POSTs the current window has used and how long it has
 * left; a pause after persistent gateway faults fills it, see rate-limit.ts) and the fault streak's `slowed`
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
