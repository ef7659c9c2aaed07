import type { AppLogger } from '../logger.js';
import { silentLogger } from '../logger.js';
import type { RedisOutageLog } from '../redis/outage.js';
import {
  DIGEST_JOB_NAME,
  type DigestJobData,
  type DigestQueue,
  digestSchedulerId,
  sameRepeat,
} from './digest-queue.js';
import { repeatOptions } from './schedule.js';
import type { DigestStore, Subscription } from './store.js';

/**
 * The scheduler role: the one place that upserts the digests' BullMQ job schedulers, one per
 * active subscription with a stable id, and removes those of subscriptions that ended or stopped. Commands
 * only write subscriptions to Redis and bump a version; this follows the version (and re-syncs now and then
 * anyway). Two schedulers side by side are harmless: an upsert with an unchanged schedule is skipped, and a
 * doubled job for one period is stopped by the period's claim.
 */

export interface DigestSchedulerOptions {
  queue: DigestQueue;
  store: DigestStore;
  logger?: AppLogger;
  /** Shared with the process's other connections, so a Redis outage is one line per interval. */
  redisOutage?: RedisOutageLog;
  /** How often the subscriptions' version is checked. Default 2 s. */
  pollMs?: number;
  /** A full sync at least this often, whatever the version. Default 60 s. */
  resyncMs?: number;
}

export interface DigestScheduler {
  /** One sync now (also what the timer runs). */
  sync(): Promise<void>;
  close(): Promise<void>;
}

/** BullMQ's job schedulers made to match the subscriptions: gone ones removed, new or changed ones upserted. */
async function syncSchedules(
  queue: DigestSchedulerOptions['queue'],
  store: DigestSchedulerOptions['store'],
  logger: AppLogger,
): Promise<void> {
  const subs = (await store.all()).filter((s) => !s.stopped);
  const wanted = new Map<string, Subscription>(subs.map((s) => [digestSchedulerId(s.channel, s.kind), s]));
  const existing = await queue.queue.getJobSchedulers(0, -1);
  const byId = new Map(existing.map((s) => [s.key, s]));
  for (const scheduler of existing) {
    if (wanted.has(scheduler.key)) continue;
    await queue.queue.removeJobScheduler(scheduler.key);
    logger.info(`removed digest schedule ${scheduler.key}`);
  }
  for (const [id, sub] of wanted) {
    const repeat = repeatOptions(sub.schedule, sub.tz);
    const current = byId.get(id);
    if (current && sameRepeat(current, repeat)) continue;
    const data: DigestJobData = { channel: sub.channel, kind: sub.kind, trigger: 'schedule' };
    await queue.queue.upsertJobScheduler(id, repeat, { name: DIGEST_JOB_NAME, data, opts: queue.jobOptions });
    logger.info(`${current ? 'updated' : 'added'} digest schedule ${id}`);
  }
}

export function startDigestScheduler(options: DigestSchedulerOptions): DigestScheduler {
  const logger = (options.logger ?? silentLogger()).child({ role: 'digest-scheduler' });
  const { queue, store } = options;
  const pollMs = options.pollMs ?? 2_000;
  const resyncMs = options.resyncMs ?? 60_000;
  let seenVersion: string | undefined;
  let lastSync = 0;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  let running: Promise<void> | undefined;

  const syncOnce = async (): Promise<void> => {
    const version = await store.version();
    await syncSchedules(queue, store, logger);
    seenVersion = version;
    lastSync = Date.now();
  };

  const sync = (): Promise<void> => {
    running ??= syncOnce().finally(() => {
      running = undefined;
    });
    return running;
  };

  const tick = async () => {
    try {
      const version = await store.version();
      if (version !== seenVersion || Date.now() - lastSync >= resyncMs) await sync();
    } catch (error) {
      const log = (e: Error) => logger.warn('digest schedule sync failed; trying again shortly', e);
      if (options.redisOutage) options.redisOutage.otherwise(log)(error as Error);
      else log(error as Error);
    } finally {
      if (!closed) timer = setTimeout(tick, pollMs);
    }
  };
  timer = setTimeout(tick, 0);

  return {
    sync,
    close: async () => {
      closed = true;
      if (timer) clearTimeout(timer);
      await running?.catch(() => {});
    },
  };
}
