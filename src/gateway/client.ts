import { inspect } from 'node:util';
import { Pool } from 'undici';
import type { AppLogger } from '../logger.js';
import { silentLogger } from '../logger.js';
import {
  type GatewayClientOptions,
  type GatewayObserver,
  parseBaseUrl,
  redactedHeaders,
  untilAborted,
} from './client-options.js';
import { DeadlineError, GatewayError, ReadsBusyError } from './errors.js';
import { type Exchange, errorFromReply, exchange, parseJson, type Reply, scrubSecret } from './http.js';
import { type Collected, collectRows, iteratePages, iterateRows, type PagedParams } from './pages.js';
import type { ReadGate } from './read-gate.js';
import { buildReadQuery, validateReadParams } from './read-params.js';
import { schemaMismatch, toActionError, toActionResult, toPage } from './responses.js';
import {
  DEFAULT_RETRY,
  isRetryableAction,
  isRetryableRead,
  type RetryPolicy,
  retryDelayMs,
  sleep,
} from './retry.js';
import {
  type ActionResult,
  type ActOptions,
  type Discovery,
  discoverySchema,
  type Page,
  type ReadParams,
  type Row,
} from './types.js';

/**
 * The only code that speaks HTTP to the gateway: keep-alive undici Pools, explicit timeouts,
 * typed errors, GET retries with jittered backoff, POSTs that are never repeated unless they provably never
 * left, a streaming page iterator and a cached discovery call. The API key lives in a private field and
 * only ever goes into the Authorization header handed to undici.
 */

/** Discovery (the catalogue, /readyz) is one shared call at a time: two connections are plenty. */
const DISCOVERY_CONNECTIONS = 2;

export type { GatewayClientOptions, GatewayObserver } from './client-options.js';
export type { PagedParams } from './pages.js';

/** A 1,000-row page of the largest sample rows is well under 1 MiB; eight leaves room without letting a runaway in. */
const DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024;

export class GatewayClient {
  readonly #apiKey: string;
  /**
   * Three pools, so one kind of traffic cannot take every connection from the others: slow reads do not
   * hold up discovery (readiness, the catalogue) or actions, and the reverse.
   */
  readonly #pools: { discovery: Pool; read: Pool; action: Pool };
  readonly #basePath: string;
  readonly #origin: string;
  readonly #logger: AppLogger;
  readonly #timeouts: { headers: number; body: number; action: number; read: number };
  readonly #retry: RetryPolicy;
  readonly #random: () => number;
  readonly #discoveryTtlMs: number;
  readonly #observer: GatewayObserver;
  readonly #maxBodyBytes: number;
  readonly #readGate: ReadGate | undefined;
  #discovery: { value: Discovery; expiresAt: number } | undefined;
  #discovering: Promise<Discovery> | undefined;
  readonly #admit: <T>(read: () => Promise<T>) => Promise<T>;

  constructor(options: GatewayClientOptions) {
    const url = parseBaseUrl(options.baseUrl);
    if (typeof options.apiKey !== 'string' || options.apiKey.trim() === '') {
      throw new TypeError('GatewayClient: apiKey is empty. Set GATEWAY_API_KEY to the agency API key.');
    }
    this.#apiKey = options.apiKey;
    this.#origin = url.origin;
    this.#basePath = url.pathname;
    this.#logger = options.logger ?? silentLogger();
    this.#timeouts = {
      headers: options.headersTimeoutMs ?? 15_000,
      body: options.bodyTimeoutMs ?? 30_000,
      action: options.actionTimeoutMs ?? 30_000,
      read: options.readTimeoutMs ?? 20_000,
    };
    this.#retry = { ...DEFAULT_RETRY, ...options.retry };
    this.#random = options.random ?? Math.random;
    this.#discoveryTtlMs = options.discoveryTtlMs ?? 60_000;
    this.#observer = options.observer ?? {};
    this.#maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.#admit = options.admit ?? ((read) => read());
    this.#readGate = options.readGate;
    const pool = (connections: number) =>
      new Pool(url.origin, {
        connections,
        connect: { timeout: options.connectTimeoutMs ?? 5_000 },
        headersTimeout: this.#timeouts.headers,
        bodyTimeout: this.#timeouts.body,
      });
    this.#pools = {
      discovery: pool(DISCOVERY_CONNECTIONS),
      read: pool(options.connections ?? 10),
      action: pool(options.connections ?? 10),
    };
  }

  /** The gateway's origin, safe to show (never carries the key). */
  get origin(): string {
    return this.#origin;
  }

  /**
   * docs/gateway-api.md §4.1: resources and actions, cached for the TTL; concurrent callers share one
   * request.
   */
  async discover(options: { force?: boolean; signal?: AbortSignal } = {}): Promise<Discovery> {
    const cached = this.#discovery;
    if (!options.force && cached && cached.expiresAt > Date.now()) return cached.value;
    // The shared request carries no caller's signal: one caller giving up must not fail the others.
    this.#discovering ??= this.#fetchDiscovery().finally(() => {
      this.#discovering = undefined;
    });
    return options.signal ? untilAborted(this.#discovering, options.signal) : this.#discovering;
  }

  async #fetchDiscovery(): Promise<Discovery> {
    const json = await this.#getJson(this.#basePath, 'discovery response', undefined, 'discovery');
    const parsed = discoverySchema.safeParse(json);
    if (!parsed.success) throw schemaMismatch('discovery response', parsed.error.message);
    this.#discovery = { value: parsed.data, expiresAt: Date.now() + this.#discoveryTtlMs };
    return parsed.data;
  }

  /** docs/gateway-api.md §4.2: one page. Parameters are checked before anything is sent. */
  async read(resource: string, params: ReadParams = {}): Promise<Page> {
    validateReadParams(resource, params);
    const path = `${this.#basePath}?${buildReadQuery(resource, params)}`;
    return this.#admit(async () => {
      // The wait for a slot counts inside the read's deadline: a person is told the bot is busy, not left waiting.
      const deadline = AbortSignal.timeout(this.#timeouts.read);
      const release = await this.#readSlot(params.signal, deadline);
      try {
        const json = await this.#getJson(path, `page of ${resource}`, params.signal, 'read', deadline);
        return toPage(json, resource);
      } finally {
        release?.();
      }
    });
  }

  async #readSlot(callerSignal: AbortSignal | undefined, deadline: AbortSignal) {
    if (!this.#readGate) return undefined;
    try {
      return await this.#readGate.acquire(
        callerSignal ? AbortSignal.any([callerSignal, deadline]) : deadline,
      );
    } catch (error) {
      if (!deadline.aborted || callerSignal?.aborted) throw error;
      const ms = this.#timeouts.read;
      throw new ReadsBusyError(`No gateway read slot came free within ${ms} ms`, ms, { cause: error });
    }
  }

  /** Every page from `offset` on, one at a time (1,000 rows a page unless `limit` says otherwise). */
  pages(resource: string, params: PagedParams = {}): AsyncIterable<Page> {
    validateReadParams(resource, params);
    return iteratePages((r, p) => this.read(r, p), resource, params);
  }

  /** Every row, streamed: memory holds one page whatever the row count. */
  rows(resource: string, params: PagedParams = {}): AsyncIterable<Row> {
    return iterateRows(this.pages(resource, params));
  }

  /** Rows into an array, at most `cap` of them, saying whether more exist. */
  async collect(resource: string, params: ReadParams, options: { cap: number }): Promise<Collected> {
    validateReadParams(resource, params);
    return collectRows((r, p) => this.read(r, p), resource, params, options.cap);
  }

  /**
   * docs/gateway-api.md §4.3: runs one action, once. Success needs HTTP 2xx and `status: "success"`. Anything
   * that leaves the outcome open (5xx, timeout, connection lost after sending, unreadable 2xx) is an
   * UnknownOutcomeError: the action may have run, and only the caller can reconcile (docs/gateway-api.md §7
   * rule 3).
   */
  async act(
    action: string,
    clientId: string,
    fields: Record<string, unknown> = {},
    options: ActOptions = {},
  ): Promise<ActionResult> {
    if (!action) throw new TypeError('GatewayClient.act: action is empty');
    if (!clientId) throw new TypeError('GatewayClient.act: clientId is empty');
    const { action: _a, client_id: _c, ...extra } = fields;
    const body = JSON.stringify({ action, client_id: clientId, ...extra });
    const requestLine = `POST ${this.#origin}${this.#basePath} action=${action} client_id=${clientId}`;
    const timeoutMs = options.timeoutMs ?? this.#timeouts.action;
    const reply = await this.#withRetries(requestLine, isRetryableAction, options.signal, async () => {
      options.signal?.throwIfAborted();
      const deadline = AbortSignal.timeout(timeoutMs);
      const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
      const call: Omit<Exchange, 'maxBodyBytes'> = {
        method: 'POST',
        path: this.#basePath,
        headers: { ...this.#headers(), 'content-type': 'application/json' },
        body,
        headersTimeoutMs: timeoutMs,
        bodyTimeoutMs: this.#timeouts.body,
        signal,
        callerSignal: options.signal,
      };
      try {
        return await this.#send(this.#pools.action, call, requestLine);
      } catch (error) {
        throw toActionError(error, requestLine);
      }
    });
    return toActionResult(reply, action, clientId, requestLine);
  }

  /** Waits for requests in flight, then closes the connections. */
  async close(): Promise<void> {
    await Promise.all(Object.values(this.#pools).map((p) => p.close()));
  }

  /** Aborts requests in flight and closes at once: for a shutdown whose deadline has passed. */
  async destroy(): Promise<void> {
    await Promise.all(Object.values(this.#pools).map((p) => p.destroy()));
  }

  toJSON(): Record<string, unknown> {
    return { type: 'GatewayClient', origin: this.#origin };
  }

  [inspect.custom](): string {
    return `GatewayClient { origin: '${this.#origin}' }`;
  }

  #headers(): Record<string, string> {
    return { authorization: `Bearer ${this.#apiKey}`, accept: 'application/json' };
  }

  async #getJson(
    path: string,
    what: string,
    callerSignal: AbortSignal | undefined,
    kind: 'discovery' | 'read',
    deadline = AbortSignal.timeout(this.#timeouts.read),
  ): Promise<unknown> {
    const requestLine = `GET ${this.#origin}${path}`;
    // One deadline for the whole read: each attempt, each backoff and the body's last byte all fall inside it.
    const deadlineMs = this.#timeouts.read;
    const signal = callerSignal ? AbortSignal.any([callerSignal, deadline]) : deadline;
    let reply: Reply;
    try {
      reply = await this.#withRetries(requestLine, isRetryableRead, signal, async () => {
        signal.throwIfAborted();
        const reply = await this.#send(
          this.#pools[kind],
          {
            method: 'GET',
            path,
            headers: this.#headers(),
            headersTimeoutMs: Math.min(this.#timeouts.headers, deadlineMs),
            bodyTimeoutMs: Math.min(this.#timeouts.body, deadlineMs),
            signal,
            callerSignal,
          },
          requestLine,
        );
        if (reply.status < 200 || reply.status > 299) throw errorFromReply(reply, requestLine);
        return reply;
      });
    } catch (error) {
      if (!deadline.aborted || callerSignal?.aborted) throw error;
      throw new DeadlineError(
        `The gateway did not finish answering within ${deadlineMs} ms, retries included (${requestLine})`,
        deadlineMs,
        { cause: error },
      );
    }
    return parseJson(reply, what);
  }

  /** One exchange, logged with the Authorization header redacted. */
  async #send(pool: Pool, call: Omit<Exchange, 'maxBodyBytes'>, requestLine: string): Promise<Reply> {
    const started = performance.now();
    let status = 'aborted';
    this.#logger.debug(`gateway → ${requestLine} headers=${JSON.stringify(redactedHeaders(call.headers))}`);
    try {
      const reply = await exchange(pool, { ...call, maxBodyBytes: this.#maxBodyBytes }, requestLine);
      status = String(reply.status);
      // Every answer, a 2xx page included: a proxy that echoes request headers into rows would otherwise put
      // the key into a channel. One substring scan of text already in memory; JSON.parse costs far more.
      reply.text = scrubSecret(reply.text, this.#apiKey);
      if (this.#logger.getLevel() === 'debug') {
        const ms = Math.round(performance.now() - started);
        const log = reply.requestId
          ? this.#logger.child({ gatewayRequestId: reply.requestId })
          : this.#logger;
        log.debug(`gateway ← ${requestLine} HTTP ${reply.status} in ${ms} ms`);
      }
      return reply;
    } catch (error) {
      if (error instanceof GatewayError) status = error.code;
      throw error;
    } finally {
      this.#notify(() =>
        this.#observer.exchange?.(call.method, status, (performance.now() - started) / 1_000),
      );
    }
  }

  #notify(tell: () => void): void {
    try {
      tell();
    } catch (error) {
      this.#logger.warn('gateway observer failed', error);
    }
  }

  async #withRetries<T>(
    requestLine: string,
    retryable: (error: GatewayError) => boolean,
    signal: AbortSignal | undefined,
    attempt: () => Promise<T>,
  ): Promise<T> {
    const attempts = Math.max(1, this.#retry.attempts);
    for (let n = 0; ; n++) {
      try {
        return await attempt();
      } catch (error) {
        if (!(error instanceof GatewayError) || !retryable(error) || n + 1 >= attempts) throw error;
        const wait = retryDelayMs(error, n, this.#retry, this.#random);
        const method = requestLine.startsWith('POST') ? 'POST' : 'GET';
        this.#notify(() => this.#observer.retry?.(method, error.code));
        this.#logger.warn(
          `gateway ${requestLine} failed (${error.name}: ${error.message}); attempt ${n + 1}/${attempts}, retrying in ${wait} ms`,
        );
        await sleep(wait, signal);
      }
    }
  }
}
