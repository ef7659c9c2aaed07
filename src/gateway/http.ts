import type { Dispatcher, Pool } from 'undici';
import {
  BadRequestError,
  ConnectionError,
  ForbiddenError,
  type GatewayError,
  type GatewayErrorInit,
  InvalidResponseError,
  MethodNotAllowedError,
  RateLimitedError,
  ResponseTooLargeError,
  ServerError,
  TimeoutError,
  UnauthorizedError,
} from './errors.js';
import { parseRetryAfter } from './retry.js';

/**
 * One HTTP exchange with the gateway over undici's `request()`, and the mapping of everything that can go
 * wrong onto the typed errors. Nothing here retries; nothing here ever sees the key except `headers`, which
 * is passed straight to undici and never logged or copied into an error.
 */

export interface Exchange {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  /** What undici listens to: the caller's signal, possibly combined with a deadline. */
  signal?: AbortSignal;
  /** The caller's own signal: its abort passes through as is instead of becoming a gateway error. */
  callerSignal?: AbortSignal;
  /** Largest body read; a longer one is dropped with ResponseTooLargeError. */
  maxBodyBytes: number;
}

export interface Reply {
  status: number;
  requestId: string | undefined;
  retryAfter: string | undefined;
  text: string;
}

/** Codes that prove the request never reached a server: nothing can have run. */
const NEVER_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  // Happy-eyeballs connects (autoSelectFamily) fail with an AggregateError of one error per address.
  if (error instanceof AggregateError) {
    const codes = error.errors.map(errorCode);
    const first = codes[0];
    if (first !== undefined && codes.every((c) => c === first)) return first;
  }
  return undefined;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Maps a thrown transport error (undici, socket, DNS, abort-by-timeout) onto a GatewayError. */
export function mapTransportError(error: unknown, requestLine: string): GatewayError {
  const code = errorCode(error);
  const name = error instanceof Error ? error.name : '';
  if ((code !== undefined && TIMEOUT_CODES.has(code)) || name === 'TimeoutError') {
    const what =
      code === 'UND_ERR_CONNECT_TIMEOUT'
        ? 'connecting'
        : code === 'UND_ERR_BODY_TIMEOUT'
          ? 'sending the response body'
          : 'answering';
    return new TimeoutError(`The gateway timed out ${what} (${requestLine})`, { cause: error });
  }
  if (code !== undefined && NEVER_SENT_CODES.has(code)) {
    const why = code === 'ECONNREFUSED' ? 'connection refused' : `address not found (${code})`;
    return new ConnectionError(`Could not reach the gateway: ${why} (${requestLine})`, {
      neverSent: true,
      cause: error,
    });
  }
  const text = error instanceof Error ? error.message : String(error);
  const detail = code && text && text !== code ? `${text} (${code})` : (code ?? text);
  return new ConnectionError(`The connection to the gateway failed: ${detail} (${requestLine})`, {
    neverSent: false,
    cause: error,
  });
}

/** Sends one request and reads the whole body. Throws only mapped GatewayErrors (or the caller's abort). */
export async function exchange(pool: Pool, call: Exchange, requestLine: string): Promise<Reply> {
  let response: Dispatcher.ResponseData;
  try {
    response = await pool.request({
      method: call.method,
      path: call.path,
      headers: call.headers,
      body: call.body,
      headersTimeout: call.headersTimeoutMs,
      bodyTimeout: call.bodyTimeoutMs,
      signal: call.signal,
    });
  } catch (error) {
    throw translate(error, call.callerSignal, requestLine);
  }
  const requestId = headerValue(response.headers['x-request-id']);
  let text: string | undefined;
  try {
    text = await readCapped(response.body, call.maxBodyBytes, response.headers['content-length']);
  } catch (error) {
    throw translate(error, call.callerSignal, requestLine);
  }
  if (text === undefined) {
    throw new ResponseTooLargeError(
      `The gateway's answer is larger than ${call.maxBodyBytes} bytes; it was not read (${requestLine})`,
      call.maxBodyBytes,
      { status: response.statusCode, requestId },
    );
  }
  return {
    status: response.statusCode,
    requestId,
    retryAfter: headerValue(response.headers['retry-after']),
    text,
  };
}

/** The body as text, or undefined (the rest discarded unread) once it passes `maxBytes`. */
async function readCapped(
  body: Dispatcher.ResponseData['body'],
  maxBytes: number,
  contentLength: string | string[] | undefined,
): Promise<string | undefined> {
  const declared = Number(headerValue(contentLength));
  if (Number.isFinite(declared) && declared > maxBytes) {
    body.destroy();
    return undefined;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      body.destroy();
      return undefined;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}

/** A caller's own abort passes through untouched; it is not a gateway fault. */
function translate(error: unknown, callerSignal: AbortSignal | undefined, requestLine: string): unknown {
  if (callerSignal?.aborted && error === callerSignal.reason) return error;
  return mapTransportError(error, requestLine);
}

/**
 * Removes a secret from text the gateway sent back. A proxy or a debugging gateway may echo request
 * headers into an error page or into a page's rows; that text goes into messages and logs, so the key must not.
 */
export function scrubSecret(text: string, secret: string): string {
  return secret && text.includes(secret) ? text.split(secret).join('[redacted]') : text;
}

/** Parses a JSON body or throws InvalidResponseError naming what was expected. */
export function parseJson(reply: Reply, what: string): unknown {
  try {
    return JSON.parse(reply.text);
  } catch {
    throw new InvalidResponseError(`The gateway sent a ${what} that is not JSON (HTTP ${reply.status})`, {
      status: reply.status,
      requestId: reply.requestId,
      body: snippet(reply.text),
    });
  }
}

const SNIPPET_CHARS = 2_000;

function snippet(text: string): string {
  return text.length > SNIPPET_CHARS ? `${text.slice(0, SNIPPET_CHARS)}…` : text;
}

/**
 * The gateway's own error text: `{ error }` per docs/gateway-api.md §7, tolerating `message` and non-JSON
 * bodies.
 */
function gatewayText(body: unknown): string | undefined {
  if (typeof body === 'object' && body !== null) {
    const { error, message } = body as { error?: unknown; message?: unknown };
    if (typeof error === 'string' && error !== '') return error;
    if (typeof message === 'string' && message !== '') return message;
    return undefined;
  }
  if (typeof body === 'string' && body.trim() !== '') return body.trim().slice(0, 300);
  return undefined;
}

/** Maps a non-2xx reply onto the typed error of its status (docs/gateway-api.md §7 table). */
export function errorFromReply(reply: Reply, requestLine: string, now: number = Date.now()): GatewayError {
  let body: unknown;
  try {
    body = JSON.parse(reply.text);
  } catch {
    body = snippet(reply.text);
  }
  const init: GatewayErrorInit = { status: reply.status, requestId: reply.requestId, body };
  const text = gatewayText(body);
  const fallback = `The gateway answered HTTP ${reply.status} (${requestLine})`;
  switch (reply.status) {
    case 400:
      return new BadRequestError(text ?? fallback, init);
    case 401:
      return new UnauthorizedError(text ?? fallback, init);
    case 403:
      return new ForbiddenError(text ?? fallback, init);
    case 405:
      return new MethodNotAllowedError(text ?? fallback, init);
    case 429:
      return new RateLimitedError(text ?? fallback, parseRetryAfter(reply.retryAfter, now), init);
  }
  if (reply.status >= 500) {
    return new ServerError(
      `Gateway server error, HTTP ${reply.status}: ${text ?? 'no message'} (${requestLine})`,
      init,
    );
  }
  return new InvalidResponseError(`${fallback}${text ? `: ${text}` : ''}`, init);
}
