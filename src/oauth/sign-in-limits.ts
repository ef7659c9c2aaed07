import type { IncomingMessage } from 'node:http';
import type { Redis } from '../redis/connection.js';

/**
 * The sign-in surface's open doors (dynamic registration, the authorization endpoint, the sign-in page) are
 * open to anyone on the internet, and each may leave a record in the Redis that also holds the queue, so each is
 * rate-limited in Redis across every process: a few a minute from one address, a few dozen or hundred a minute
 * in all. A request over the limit is refused before anything is stored.
 */

const WINDOW_MS = 60_000;

export interface Limit {
  /** The counter's name in Redis. */
  name: string;
  perAddress: number;
  total: number;
}

/** An assistant registers once; what a flood registered expires unused (oauth-store.ts). */
export const REGISTRATIONS: Limit = { name: 'register-rate', perAddress: 10, total: 60 };
/** Each authorization request keeps a sign-in (interaction) for 10 minutes: this bounds how many exist. */
export const AUTHORIZATIONS: Limit = { name: 'authorize-rate', perAddress: 30, total: 300 };
/** The sign-in page is opened once or twice per authorization. */
export const SIGN_IN_PAGES: Limit = { name: 'sign-in-rate', perAddress: 60, total: 600 };

async function take(redis: Redis, key: string, max: number): Promise<boolean> {
  const [[, used]] = (await redis.multi().incr(key).pexpire(key, WINDOW_MS).exec()) as [[unknown, number]];
  return used <= max;
}

/**
 * The address a request came from: the socket's, or behind `trustProxy` reverse proxies the one the outermost
 * of them saw (X-Forwarded-For, as Express's `trust proxy` hop count reads it: each proxy appends the address it
 * saw, so only the last `trustProxy` entries were written by proxies of ours; anything before is the sender's).
 */
export function clientAddress(req: IncomingMessage, trustProxy: number): string {
  const chain = [req.socket.remoteAddress ?? 'unknown'];
  const header = req.headers['x-forwarded-for'];
  const forwarded = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .reverse();
  chain.push(...forwarded);
  const address = chain[Math.min(trustProxy, chain.length - 1)] ?? 'unknown';
  return address.replace(/[^0-9a-fA-F.:]/g, '').slice(0, 45) || 'unknown';
}

/** Seconds to wait when a request from this address is over the limit, or 0 when it may go on. */
export async function limitWait(
  redis: Redis,
  prefix: string,
  limit: Limit,
  address: string,
): Promise<number> {
  const window = Math.floor(Date.now() / WINDOW_MS);
  const base = `${prefix}:oauth:${limit.name}:${window}`;
  const ok =
    (await take(redis, `${base}:${address}`, limit.perAddress)) && (await take(redis, base, limit.total));
  return ok ? 0 : Math.max(1, Math.ceil(((window + 1) * WINDOW_MS - Date.now()) / 1_000));
}
