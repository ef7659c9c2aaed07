/**
 * Typed gateway errors with stable codes: callers compare `code`, people read `message` and
 * `advice`. No error ever holds the API key: messages are built from statuses and the gateway's own text.
 */

import { FORBIDDEN_ADVICE, UNAUTHORIZED_ADVICE } from './advice.js';
export const GatewayErrorCode = {
  BadRequest: 'gateway_bad_request',
  Unauthorized: 'gateway_unauthorized',
  Forbidden: 'gateway_forbidden',
  MethodNotAllowed: 'gateway_method_not_allowed',
  RateLimited: 'gateway_rate_limited',
  Server: 'gateway_server_error',
  Connection: 'gateway_connection',
  Timeout: 'gateway_timeout',
  UnknownOutcome: 'gateway_unknown_outcome',
  ActionFailed: 'gateway_action_failed',
  InvalidResponse: 'gateway_invalid_response',
  ResponseTooLarge: 'gateway_response_too_large',
  Deadline: 'gateway_deadline',
  Busy: 'gateway_busy',
  ScanLimit: 'gateway_scan_limit',
} as const;
export type GatewayErrorCode = (typeof GatewayErrorCode)[keyof typeof GatewayErrorCode];

export interface GatewayErrorInit {
  status?: number;
  requestId?: string;
  retryable?: boolean;
  advice?: string;
  body?: unknown;
  cause?: unknown;
}

export class GatewayError extends Error {
  override name = 'GatewayError';
  readonly status: number | undefined;
  readonly requestId: string | undefined;
  readonly retryable: boolean;
  /** What a person should do next, in one sentence. */
  readonly advice: string | undefined;
  /**
   * The response body as the gateway sent it (kept for the report docs/gateway-api.md §7 rule 5 asks for).
   */
  readonly body: unknown;
  readonly at: string;

  constructor(
    readonly code: GatewayErrorCode,
    message: string,
    init: GatewayErrorInit = {},
  ) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.requestId = init.requestId;
    this.retryable = init.retryable ?? false;
    this.advice = init.advice;
    this.body = init.body;
    this.at = new Date().toISOString();
  }
}

export class BadRequestError extends GatewayError {
  override name = 'BadRequestError';
  constructor(message: string, init: GatewayErrorInit = {}) {
    super(GatewayErrorCode.BadRequest, message, { status: 400, ...init, retryable: false });
  }
}

export class UnauthorizedError extends GatewayError {
  override name = 'UnauthorizedError';
  constructor(message: string, init: GatewayErrorInit = {}) {
    super(GatewayErrorCode.Unauthorized, message, {
      status: 401,
      advice: UNAUTHORIZED_ADVICE,
      ...init,
      retryable: false,
    });
  }
}

export class ForbiddenError extends GatewayError {
  override name = 'ForbiddenError';
  constructor(message: string, init: GatewayErrorInit = {}) {
    super(GatewayErrorCode.Forbidden, message, {
      status: 403,
      advice: FORBIDDEN_ADVICE,
      ...init,
      retryable: false,
    });
  }
}

export class MethodNotAllowedError extends GatewayError {
  override name = 'MethodNotAllowedError';
  constructor(message: string, init: GatewayErrorInit = {}) {
    super(GatewayErrorCode.MethodNotAllowed, message, { status: 405, ...init, retryable: false });
  }
}

export class RateLimitedError extends GatewayError {
  override name = 'RateLimitedError';
  constructor(
    message: string,
    readonly retryAfterMs: number | undefined,
    init: GatewayErrorInit = {},
  ) {
    super(GatewayErrorCode.RateLimited, message, {
      status: 429,
      advice: 'The gateway is rate limiting: wait a moment and try again.',
      ...init,
      retryable: true,
    });
  }
}

export class ServerError extends GatewayError {
  override name = 'ServerError';
  constructor(message: string, init: GatewayErrorInit = {}) {
    super(GatewayErrorCode.Server, message, {
      advice:
        'The gateway had a server or upstream failure. If it persists, report it with the time and the message.',
      ...init,
      retryable: true,
    });
  }
}

export class ConnectionError extends GatewayError {
  override name = 'ConnectionError';
  /** True when the request provably never left (connection refused, DNS): a POST may then be retried. */
  readonly neverSent: boolean;
  constructor(message: string, init: GatewayErrorInit & { neverSent?: boolean } = {}) {
    super(GatewayErrorCode.Connection, message, {
      advice: 'The gateway could not be reached. Check GATEWAY_BASE_URL or try again shortly.',
      ...init,
      retryable: true,
    });
    this.neverSent = init.neverSent ?? false;
  }
}

export class TimeoutError extends GatewayError {
  override name = 'TimeoutError';
  constructor(message: string, init: GatewayErrorInit = {}) {
    super(GatewayErrorCode.Timeout, message, {
      advice: 'The gateway did not answer in time. Try again shortly.',
      ...init,
      retryable: true,
    });
  }
}

/**
 * A POST whose outcome cannot be known: a 5xx, a timeout or a connection lost after the request left. The
 * action may have run; the caller must reconcile before any new POST (docs/gateway-api.md §7 rule 3).
 */
export class UnknownOutcomeError extends GatewayError {
  override name = 'UnknownOutcomeError';
  constructor(
    message: string,
    readonly underlying: GatewayError,
    init: GatewayErrorInit = {},
  ) {
    super(GatewayErrorCode.UnknownOutcome, message, {
      status: underlying.status,
      body: underlying.body,
      advice: 'The action may or may not have run. Check for the record before running it again.',
      ...init,
      retryable: false,
      cause: underlying,
    });
  }
}

/**
 * HTTP 2xx with body `status: "error"`: the work did not complete and is not billed (docs/gateway-api.md §7
 * rule 4).
 */
export class ActionFailedError extends GatewayError {
  override name = 'ActionFailedError';
  constructor(
    message: string,
    readonly statusCode: number | undefined,
    readonly data: unknown,
    init: GatewayErrorInit = {},
  ) {
    super(GatewayErrorCode.ActionFailed, message, {
      advice: 'The gateway reports the action did not complete. It was not billed; retry when ready.',
      ...init,
      retryable: false,
    });
  }
}

export class InvalidResponseError extends GatewayError {
  override name = 'InvalidResponseError';
  constructor(message: string, init: GatewayErrorInit = {}) {
    super(GatewayErrorCode.InvalidResponse, message, { ...init, retryable: false });
  }
}

/** A body past the client's size cap: read no further (a runaway or hostile answer must not fill memory). */
export class ResponseTooLargeError extends GatewayError {
  override name = 'ResponseTooLargeError';
  constructor(
    message: string,
    readonly maxBytes: number,
    init: GatewayErrorInit = {},
  ) {
    super(GatewayErrorCode.ResponseTooLarge, message, {
      advice: 'The gateway answered with more data than the bot reads at once. Ask for fewer rows (limit=).',
      ...init,
      retryable: false,
    });
  }
}

/**
 * A read that did not finish within its whole-request deadline, retries included. The client does not try it
 * again (the time is spent); a job may, later.
 */
export class DeadlineError extends GatewayError {
  override name = 'DeadlineError';
  constructor(
    message: string,
    readonly deadlineMs: number,
    init: GatewayErrorInit = {},
  ) {
    super(GatewayErrorCode.Deadline, message, {
      advice: 'The gateway took too long to answer. Try again in a minute.',
      ...init,
      retryable: true,
    });
  }
}

/**
 * A read that found no free read slot (GATEWAY_READ_CONCURRENCY, GATEWAY_FLEET_READ_CONCURRENCY) within its
 * deadline: nothing was sent, so it may be asked again at once; the bot, not the gateway, is busy.
 */
export class ReadsBusyError extends GatewayError {
  override name = 'ReadsBusyError';
  constructor(
    message: string,
    readonly deadlineMs: number,
    init: GatewayErrorInit = {},
  ) {
    super(GatewayErrorCode.Busy, message, {
      advice: 'The bot is reading a lot from the gateway right now: try again in a minute.',
      ...init,
      retryable: true,
    });
  }
}

/**
 * A page walk that ran past its cap: more rows than the first page's total said, or than any scan may hold.
 * A gateway whose pages never end must not fill the process's memory.
 */
export class ScanLimitError extends GatewayError {
  override name = 'ScanLimitError';
  constructor(
    message: string,
    readonly resource: string,
    readonly limit: number,
    init: GatewayErrorInit = {},
  ) {
    super(GatewayErrorCode.ScanLimit, message, {
      advice: 'The gateway kept sending pages past the rows it said it had. Try again later.',
      ...init,
      retryable: false,
    });
  }
}

export function isGatewayError(error: unknown): error is GatewayError {
  return error instanceof GatewayError;
}

/**
 * What a person or an unauthenticated probe may see of a failure: its code, HTTP status and time. Messages
 * name the gateway's address and the request (for the logs); this never does. A wrapper (a job error whose
 * cause is the gateway's) is described by the gateway error inside it.
 */
export function publicErrorLine(error: unknown, now: Date = new Date()): string {
  const gateway = findGatewayError(error);
  return `${publicErrorCode(error)} at ${gateway?.at ?? now.toISOString()}`;
}

/** publicErrorLine without the time: `gateway_server_error (HTTP 500)`, `job_unknown_action`, `internal_error`. */
export function publicErrorCode(error: unknown): string {
  const gateway = findGatewayError(error);
  if (gateway instanceof UnknownOutcomeError)
    return `${gateway.code} after ${statusPart(gateway.underlying)}`;
  if (gateway) return statusPart(gateway);
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && SAFE_CODE.test(code)) return code;
  // Our own job errors start their message with their code (`job_unknown_action: …`), as do the public lines.
  const message = error instanceof Error ? error.message : '';
  return LEADING_CODE.exec(message)?.[1] ?? 'internal_error';
}

const SAFE_CODE = /^[a-z][a-z0-9_]{0,60}$/;
const LEADING_CODE = /^([a-z][a-z0-9]*_[a-z0-9_]{1,60})(?=[: ]|$)/;

function statusPart(error: GatewayError): string {
  return error.status ? `${error.code} (HTTP ${error.status})` : error.code;
}

function findGatewayError(error: unknown): GatewayError | undefined {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof GatewayError) return e;
  }
  return undefined;
}

/** The gateway's own words from an error body (`{ error }` or `{ message }`), if it sent any. */
function gatewayWords(error: GatewayError): string | undefined {
  const body = error.body;
  if (typeof body !== 'object' || body === null) return undefined;
  const { error: text, message } = body as { error?: unknown; message?: unknown };
  if (typeof text === 'string' && text.trim()) return text.trim().slice(0, 500);
  if (typeof message === 'string' && message.trim()) return message.trim().slice(0, 500);
  return undefined;
}

/**
 * What a person may read of a refusal: the gateway's own words; or the client's own check, raised before any
 * request was sent (a bad order or filter: no body, and no address in its message); or else the code line.
 */
export function publicDetail(error: GatewayError): string {
  const local = error.body === undefined && error instanceof BadRequestError;
  return gatewayWords(error) ?? (local ? error.message : publicErrorLine(error));
}
