import { setTimeout as delay } from 'node:timers/promises';
import { ConnectionError, type GatewayError, RateLimitedError, ServerError, TimeoutError } from './errors.js';

/**
 * Backoff and retry policy (docs/gateway-api.md §7): exponential backoff with full jitter, a cap, and
 * Retry-After honoured on 429. Pure functions so the maths is unit-tested without a network.
 */

export interface RetryPolicy {
  /** Total attempts, the first one included. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** The longest a Retry-After header may make us wait. */
  retryAfterCapMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  attempts: 5,
  baseDelayMs: 250,
  maxDelayMs: 10_000,
  retryAfterCapMs: 30_000,
};

/**
 * Full jitter: a uniform delay in [0, min(max, base * 2^attempt)). Spreads retries of many workers that
 * failed together, which matters most when a 500 means "under load, back off".
 * `attempt` is 0 for the wait after the first failure.
 */
export function backoffDelayMs(attempt: number, policy: RetryPolicy, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.floor(random() * ceiling);
}

/**
 * Retry-After is either delta-seconds or an HTTP date (RFC 9110 §10.2.3). Returns milliseconds to wait
 * (never negative), or undefined when the header is absent or unreadable.
 */
export function parseRetryAfter(
  value: string | string[] | undefined,
  now: number = Date.now(),
): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return undefined;
  const text = raw.trim();
  if (text === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  // A bare negative or garbage number is not a date either; Date.parse would accept "-1".
  if (/^[-+]?\d/.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/** Which failures a GET may repeat: 5xx, network errors, timeouts and 429. Never 400/401/403/405. */
export function isRetryableRead(error: GatewayError): boolean {
  return (
    error instanceof ServerError ||
    error instanceof ConnectionError ||
    error instanceof TimeoutError ||
    error instanceof RateLimitedError
  );
}

/** A POST may only be repeated when it provably never left this process (refused, DNS). */
export function isRetryableAction(error: GatewayError): boolean {
  return error instanceof ConnectionError && error.neverSent;
}

/** The wait before the next attempt: Retry-After (capped) on a 429 that gave one, else jittered backoff. */
export function retryDelayMs(
  error: GatewayError,
  attempt: number,
  policy: RetryPolicy,
  random: () => number,
): number {
  if (error instanceof RateLimitedError && error.retryAfterMs !== undefined) {
    return Math.min(error.retryAfterMs, policy.retryAfterCapMs);
  }
  return backoffDelayMs(attempt, policy, random);
}

/** Waits, unless the caller aborts first (then rejects with the signal's reason). */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0) {
    signal?.throwIfAborted();
    return;
  }
  try {
    await delay(ms, undefined, signal ? { signal } : undefined);
  } catch (error) {
    // timers/promises rejects with a generic AbortError; the caller's own reason is more useful.
    if (signal?.aborted) throw signal.reason;
    throw error;
  }
}
