/**
 * Typed gateway errors with stable codes (STYLE §8): callers compare `code`, people read `message` and
 * `advice`. No error ever holds the API key: messages are built from statuses and the gateway's own text.
 */

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
  /** The response body as the gateway sent it (kept for the report §7 rule 5 asks for). */
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

export const UNAUTHORIZED_ADVICE =
  'The key is missing, invalid, revoked or expired: create a new one in the agency automations area.';

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

export const FORBIDDEN_ADVICE =
  'The key lacks the scope (read for GET, write for POST) or the client is not linked to the agency that owns the key. A key created before the client was linked may lack access: regenerate the key or re-check its scopes.';

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
 * action may have run; the caller must reconcile before any new POST (§7 rule 3).
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

/** HTTP 2xx with body `status: "error"`: the work did not complete and is not billed (§7 rule 4). */
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

export function isGatewayError(error: unknown): error is GatewayError {
  return error instanceof GatewayError;
}
