import { describe, expect, it } from 'vitest';
import { ConnectionError, RateLimitedError, ServerError } from '../../src/gateway/errors.js';
import {
  backoffDelayMs,
  DEFAULT_RETRY,
  isRetryableAction,
  parseRetryAfter,
  retryDelayMs,
  sleep,
} from '../../src/gateway/retry.js';

describe('backoff with full jitter', () => {
  it('doubles the ceiling from 250 ms each attempt and caps it at the max delay', () => {
    const top = () => 0.999_999;
    const ceilings = [0, 1, 2, 3, 4, 5, 6, 7].map((n) => backoffDelayMs(n, DEFAULT_RETRY, top) + 1);
    expect(ceilings).toEqual([250, 500, 1000, 2000, 4000, 8000, 10_000, 10_000]);
  });

  it('draws the delay uniformly below the ceiling', () => {
    expect(backoffDelayMs(2, DEFAULT_RETRY, () => 0)).toBe(0);
    expect(backoffDelayMs(2, DEFAULT_RETRY, () => 0.5)).toBe(500);
  });

  it('waits the Retry-After of a 429, capped, instead of the backoff', () => {
    const policy = { ...DEFAULT_RETRY, retryAfterCapMs: 5_000 };
    expect(retryDelayMs(new RateLimitedError('slow down', 2_000), 0, policy, () => 0)).toBe(2_000);
    expect(retryDelayMs(new RateLimitedError('slow down', 60_000), 0, policy, () => 0)).toBe(5_000);
    expect(retryDelayMs(new RateLimitedError('slow down', undefined), 1, policy, () => 0.5)).toBe(250);
    expect(retryDelayMs(new ServerError('boom'), 1, policy, () => 0.5)).toBe(250);
  });
});

describe('Retry-After parsing', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');

  it('reads delta-seconds', () => {
    expect(parseRetryAfter('3', now)).toBe(3_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('1.5', now)).toBe(1_500);
    expect(parseRetryAfter(['7', '9'], now)).toBe(7_000);
  });

  it('reads an HTTP date as the time left until then, never negative', () => {
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:10 GMT', now)).toBe(10_000);
    expect(parseRetryAfter('Tue, 31 Dec 2024 23:59:00 GMT', now)).toBe(0);
  });

  it('ignores absent, empty, negative and unreadable values', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('', now)).toBeUndefined();
    expect(parseRetryAfter('-1', now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
  });
});

describe('which POST failures may be repeated', () => {
  it('repeats only a connection that provably never left', () => {
    expect(isRetryableAction(new ConnectionError('refused', { neverSent: true }))).toBe(true);
    expect(isRetryableAction(new ConnectionError('reset', { neverSent: false }))).toBe(false);
    expect(isRetryableAction(new ServerError('boom'))).toBe(false);
  });
});

describe('sleep', () => {
  it('stops waiting with the caller reason when aborted', async () => {
    const controller = new AbortController();
    const reason = new Error('stop');
    const started = Date.now();
    setTimeout(() => controller.abort(reason), 10);
    await expect(sleep(5_000, controller.signal)).rejects.toBe(reason);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
