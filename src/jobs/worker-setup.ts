import type { Job } from 'bullmq';
import type { AppLogger } from '../logger.js';
import { silentLogger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { Redis } from '../redis/connection.js';
import { createRedis, type RedisTarget, redisErrorKind } from '../redis/connection.js';
import { RedisOutageLog } from '../redis/outage.js';

/** What every worker role starts with: its logger and two Redis connections (one for BullMQ's blocking reads). */
export interface WorkerSetup {
  logger: AppLogger;
  redis: Redis;
  blocking: Redis;
  /** Where this worker's lost connections are counted (one line per interval for the whole process). */
  redisOutage: RedisOutageLog;
  /** The worker's 'error' listener: a lost connection goes to the outage line, anything else is logged and counted. */
  onError(queue: string, what: string, metrics?: Metrics): (error: Error) => void;
  /** Keeps a report (telling a thread about a failed job) until it settles: `close` waits for it. */
  track(report: Promise<unknown>): void;
  /**
   * How every worker role stops: the worker first (it takes no new job and lets the running ones end), then
   * the reports still being sent, then what else it owns (a queue), then its two connections.
   */
  close(worker: Closable, ...more: Closable[]): Promise<void>;
}

interface Closable {
  close(): Promise<void>;
}

export function setUpWorker(
  options: {
    connection: string | RedisTarget | (() => Redis);
    logger?: AppLogger | undefined;
    redisOutage?: RedisOutageLog | undefined;
  },
  role: string,
): WorkerSetup {
  const logger = (options.logger ?? silentLogger()).child({ role });
  const connect = (blocking: boolean) =>
    typeof options.connection === 'function'
      ? options.connection()
      : createRedis(options.connection, { blocking });
  const redis = connect(false);
  const blocking = connect(true);
  // Redis going away is logged once per interval, not left to ioredis's "Unhandled error event" on stderr;
  // both reconnect.
  const redisOutage = options.redisOutage ?? new RedisOutageLog(logger, redisUrlOf(options.connection));
  for (const connection of [redis, blocking]) redisOutage.watch(connection);
  const onError = (queue: string, what: string, metrics?: Metrics) =>
    redisOutage.otherwise((error) => {
      metrics?.workerError(queue, redisErrorKind(error));
      logger.error(what, error);
    });
  const reports = new Set<Promise<unknown>>();
  const track = (report: Promise<unknown>) => {
    const tracked: Promise<unknown> = report.catch(() => {}).finally(() => reports.delete(tracked));
    reports.add(tracked);
  };
  const close = async (worker: Closable, ...more: Closable[]) => {
    await worker.close();
    await Promise.allSettled([...reports]);
    await Promise.allSettled(more.map((m) => m.close()));
    await Promise.allSettled([redis.quit(), blocking.quit()]);
  };
  return { logger, redis, blocking, redisOutage, onError, track, close };
}

/** Seconds a job ran, from BullMQ's timestamps (0 when they are missing). */
export const ranFor = (job: { processedOn?: number; finishedOn?: number }) =>
  Math.max(0, (job.finishedOn ?? Date.now()) - (job.processedOn ?? Date.now())) / 1_000;

/** The Redis URL to name in an outage line (its password is never printed). */
function redisUrlOf(connection: string | RedisTarget | (() => Redis)): string {
  if (typeof connection === 'string') return connection;
  return typeof connection === 'function' ? 'redis://' : connection.url;
}

/** One processor per job kind: a worker dispatches on the job's name. */

// biome-ignore lint/suspicious/noExplicitAny: a map of processors of different data types
export type JobProcessor = (job: Job<any, any>, token: string | undefined) => Promise<unknown>;

export function dispatch(processors: Record<string, JobProcessor>): JobProcessor {
  return async (job, token) => {
    const processor = processors[job.name];
    if (!processor) throw new Error(`job_unknown_kind: no processor for job "${job.name}"`);
    return processor(job, token);
  };
}
