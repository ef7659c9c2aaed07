import type { AppLogger } from '../logger.js';
import type { Redis } from './connection.js';

/**
 * Redis not answering, told to a person. At start the bot cannot do anything without it, so it says so in
 * one line and the process exits; once it has served, every connection (the bot's, each worker's, BullMQ's
 * queues) retries on its own and this log says so once per interval instead of once per connection and try.
 */

const HOW_TO_GET_ONE =
  'Start one (docker run -d -p 6379:6379 redis:7, apt-get install redis-server, or brew install redis && ' +
  'brew services start redis) or set REDIS_URL to yours; `npm run demo` starts its own.';

/** Where a Redis URL points, without its password: all a log line or an error message may name. */
function redisWhere(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || '6379'}`;
  } catch {
    return 'an address that is not a URL';
  }
}

class RedisUnavailableError extends Error {
  readonly code = 'redis_unavailable';
}

const reasonOf = (error: unknown) => {
  const e = error as { code?: unknown; message?: unknown };
  return typeof e.code === 'string' ? e.code : String(e.message ?? error);
};

/** Resolves once the connection is ready; rejects with one plain line when it is not within `timeoutMs`. */
export function redisReadyAtStart(redis: Redis, url: string, timeoutMs: number): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    let last = 'no answer';
    const onError = (error: unknown) => {
      last = reasonOf(error);
    };
    const done = () => {
      clearTimeout(timer);
      redis.off('error', onError);
      redis.off('ready', onReady);
    };
    const onReady = () => {
      done();
      resolve();
    };
    const timer = setTimeout(() => {
      done();
      reject(
        new RedisUnavailableError(
          `Redis is not answering at REDIS_URL (${redisWhere(url)}: ${last}, for ${Math.round(timeoutMs / 1_000)} s). ${HOW_TO_GET_ONE}`,
        ),
      );
    }, timeoutMs);
    redis.on('error', onError);
    redis.once('ready', onReady);
  });
}

/** ioredis and BullMQ report a lost connection as these; anything else is a real error to log as such. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
]);
function isRedisConnectionError(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown };
  if (typeof e.code === 'string' && CONNECTION_CODES.has(e.code)) return true;
  if ((error as { name?: unknown }).name === 'MaxRetriesPerRequestError') return true;
  return (
    typeof e.message === 'string' && /Connection is closed|connect ETIMEDOUT|ECONNREFUSED/.test(e.message)
  );
}

/** One line per interval while Redis is not answering, shared by every connection of the process. */
export class RedisOutageLog {
  readonly #logger: AppLogger;
  readonly #where: string;
  readonly #intervalMs: number;
  #since: number | undefined;
  #loggedAt = 0;

  constructor(logger: AppLogger, url: string, intervalMs = 30_000) {
    this.#logger = logger;
    this.#where = redisWhere(url);
    this.#intervalMs = intervalMs;
  }

  /** A connection's error: counted towards the one line, not logged on its own. */
  readonly error = (error: unknown): void => {
    const now = Date.now();
    this.#since ??= now;
    if (now - this.#loggedAt < this.#intervalMs) return;
    this.#loggedAt = now;
    const forSec = Math.round((now - this.#since) / 1_000);
    this.#logger.warn(
      `Redis at ${this.#where} is not answering (${reasonOf(error)}${forSec ? `, for ${forSec} s` : ''}): ` +
        `retrying; requests and jobs wait, /readyz says redis: not answering. Next line in ${Math.round(this.#intervalMs / 1_000)} s if still down.`,
    );
  };

  /** A connection is ready again: says so once per outage. */
  readonly ready = (): void => {
    if (this.#since === undefined) return;
    const forSec = Math.round((Date.now() - this.#since) / 1_000);
    this.#since = undefined;
    this.#loggedAt = 0;
    this.#logger.info(`Redis at ${this.#where} answers again (was down ${forSec} s)`);
  };

  /** An error handler for BullMQ's queues and workers: a lost connection counts here, anything else is logged. */
  otherwise(log: (error: Error) => void): (error: Error) => void {
    return (error) => (isRedisConnectionError(error) ? this.error(error) : log(error));
  }

  /** Routes a connection's errors and recoveries here. */
  watch(connection: Redis): void {
    connection.on('error', this.error);
    connection.on('ready', this.ready);
  }
}
