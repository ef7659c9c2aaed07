import type { Redis } from '../redis/connection.js';
import { backoffMs } from './rate-limit.js';

/**
 * Gateway faults in a row, counted across every worker process (docs/gateway-api.md §7, §8). One 500 or
 * timeout is that request's own business: its job reconciles and retries with jittered backoff while every
 * other job runs on. Only faults that persist (`threshold` in a row, with no good answer between them) mean
 * the gateway is struggling: then the whole queue slows down, for `baseMs` doubling with each further fault,
 * and the waiting messages say so (the `slowed` key, read by wait.ts).
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

export function faultKeys(prefix: string) {
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
