import type { AppLogger } from '../logger.js';
import { silentLogger } from '../logger.js';
import type { Redis } from '../redis.js';
import { createRedis, type RedisTarget } from '../redis.js';

/** What every worker role starts with: its logger and two Redis connections (one for BullMQ's blocking reads). */
export interface WorkerSetup {
  logger: AppLogger;
  redis: Redis;
  blocking: Redis;
}

export function setUpWorker(
  options: { connection: string | RedisTarget | (() => Redis); logger?: AppLogger | undefined },
  role: string,
): WorkerSetup {
  const logger = (options.logger ?? silentLogger()).child({ role });
  const connect = (blocking: boolean) =>
    typeof options.connection === 'function'
      ? options.connection()
      : createRedis(options.connection, { blocking });
  const redis = connect(false);
  const blocking = connect(true);
  // Redis going away is logged, not left to ioredis's "Unhandled error event" on stderr; both reconnect.
  for (const connection of [redis, blocking])
    connection.on('error', (error: Error) => logger.warn('redis connection error', error.message));
  return { logger, redis, blocking };
}

/** Seconds a job ran, from BullMQ's timestamps (0 when they are missing). */
export const ranFor = (job: { processedOn?: number; finishedOn?: number }) =>
  Math.max(0, (job.finishedOn ?? Date.now()) - (job.processedOn ?? Date.now())) / 1_000;
