import type { IncomingMessage } from 'node:http';
import type { Redis } from '../redis/connection.js';

/**
 * Dynamic client registration is open to anyone on the internet, so it is rate-limited in Redis across every
 * process: a few a minute from one address, a few dozen a minute in all (an assistant registers once; a flood
 * is refused with 429 and Retry-After, and what it registered expires unused). Client ID metadata documents need
 * no registration and are unaffected.
 */

const WINDOW_MS = 60_000;
const REGISTRATIONS = { perAddress: 10, total: 60 } as const;

async function take(redis: Redis, key: string, max: number): Promise<boolean> {
  const [[, used]] = (await redis.multi().incr(key).pexpire(key, WINDOW_MS).exec()) as [[unknown, number]];
  return used <= max;
}

/** Seconds to wait when a registration from this request is over the limit, or 0 when it may go on. */
export async function registrationWait(redis: Redis, prefix: string, req: IncomingMessage): Promise<number> {
  const window = Math.floor(Date.now() / WINDOW_MS);
  const address = (req.socket.remoteAddress ?? 'unknown').replace(/[^0-9a-fA-F.:]/g, '');
  const base = `${prefix}:oauth:register-rate:${window}`;
  const ok =
    (await take(redis, `${base}:${address}`, REGISTRATIONS.perAddress)) &&
    (await take(redis, base, REGISTRATIONS.total));
  return ok ? 0 : Math.max(1, Math.ceil(((window + 1) * WINDOW_MS - Date.now()) / 1_000));
}
