import type { AppLogger } from '../logger.js';
import type { ReadGate } from './read-gate.js';
import type { RetryPolicy } from './retry.js';

/** What a GatewayClient is made with, and the small helpers of its HTTP side that hold no state. */

/**
 * Told about every exchange and every retry (the runtime counts them as metrics). The client knows nothing of
 * what listens; a listener's fault never fails a request.
 */
export interface GatewayObserver {
  /** One exchange ended: an HTTP status, or the error's code when no answer came. */
  exchange?(method: 'GET' | 'POST', status: string, seconds: number): void;
  /** A request is about to be sent again after `reason` (an error code). */
  retry?(method: 'GET' | 'POST', reason: string): void;
}

export interface GatewayClientOptions {
  baseUrl: string;
  apiKey: string;
  logger?: AppLogger;
  connectTimeoutMs?: number;
  /** Time to the response headers of a GET. */
  headersTimeoutMs?: number;
  /** Longest silence while a response body streams in. */
  bodyTimeoutMs?: number;
  /** Whole-request deadline of a POST (docs/gateway-api.md §8 recommends 10–30 s for generation actions). */
  actionTimeoutMs?: number;
  /**
   * Whole-request deadline of a GET, every attempt and every backoff included (default 20 s): a gateway that
   * sends its headers and then a byte now and then must not hold a read, and the person waiting, for ever.
   */
  readTimeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  discoveryTtlMs?: number;
  /** Largest response body read (default 8 MiB); a longer one fails with ResponseTooLargeError. */
  maxBodyBytes?: number;
  /** Source of jitter; tests inject a fixed one. */
  random?: () => number;
  /** Connections of the read pool and of the action pool each; discovery has a small pool of its own. */
  connections?: number;
  observer?: GatewayObserver;
  /**
   * Every read (each page) runs through this: a client kept for one kind of caller caps its reads in flight
   * and counts them (the assistant tools' client, assistant-calls.ts). Unset, reads start at once.
   */
  admit?: <T>(read: () => Promise<T>) => Promise<T>;
  /** Caps page reads in flight (read-gate.ts): GATEWAY_READ_CONCURRENCY, and the fleet's through Redis. */
  readGate?: ReadGate;
}

/** Waits for a shared promise, or rejects with the caller's reason if it aborts first. */
export function untilAborted<T>(shared: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  // Other callers may still want the result; an abandoned rejection must not be reported as unhandled.
  shared.catch(() => {});
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    shared.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

export function redactedHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    out[name] = name.toLowerCase() === 'authorization' ? 'Bearer [redacted]' : value;
  }
  return out;
}

export function parseBaseUrl(baseUrl: string): URL {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(
      `GatewayClient: baseUrl "${baseUrl}" is not a URL. Set GATEWAY_BASE_URL to http(s)://…`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`GatewayClient: baseUrl must be http or https, got ${url.protocol}`);
  }
  if (url.username || url.password) {
    throw new TypeError('GatewayClient: baseUrl must not carry credentials; the key goes in GATEWAY_API_KEY');
  }
  return url;
}
