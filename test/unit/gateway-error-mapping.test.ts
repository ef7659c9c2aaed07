import { describe, expect, it } from 'vitest';
import { FORBIDDEN_ADVICE, UNAUTHORIZED_ADVICE } from '../../src/gateway/advice.js';
import {
  BadRequestError,
  ConnectionError,
  ForbiddenError,
  InvalidResponseError,
  MethodNotAllowedError,
  RateLimitedError,
  ServerError,
  TimeoutError,
  UnauthorizedError,
} from '../../src/gateway/errors.js';
import { errorFromReply, mapTransportError, type Reply } from '../../src/gateway/http.js';

const line = 'GET http://127.0.0.1/?resource=keywords';

function withCode(code: string, message = code): Error {
  return Object.assign(new Error(message), { code });
}

describe('transport errors', () => {
  it('marks refused connections and DNS failures as never sent', () => {
    for (const code of ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']) {
      const error = mapTransportError(withCode(code), line);
      expect(error).toBeInstanceOf(ConnectionError);
      expect((error as ConnectionError).neverSent).toBe(true);
    }
    const aggregate = new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')], 'all failed');
    expect((mapTransportError(aggregate, line) as ConnectionError).neverSent).toBe(true);
  });

  it('treats a reset or closed socket as possibly sent', () => {
    for (const code of ['ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE']) {
      const error = mapTransportError(withCode(code), line);
      expect(error).toBeInstanceOf(ConnectionError);
      expect((error as ConnectionError).neverSent).toBe(false);
    }
  });

  it('maps undici and AbortSignal timeouts to TimeoutError', () => {
    for (const code of ['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']) {
      expect(mapTransportError(withCode(code), line)).toBeInstanceOf(TimeoutError);
    }
    const signalTimeout = new DOMException('The operation was aborted due to timeout', 'TimeoutError');
    expect(mapTransportError(signalTimeout, line)).toBeInstanceOf(TimeoutError);
  });
});

describe('HTTP statuses', () => {
  const reply = (status: number, body: unknown, extra: Partial<Reply> = {}): Reply => ({
    status,
    requestId: 'req-1',
    retryAfter: undefined,
    text: typeof body === 'string' ? body : JSON.stringify(body),
    ...extra,
  });

  it('uses the gateway error text as the message of 400, 401, 403 and 405', () => {
    const bad = errorFromReply(reply(400, { error: 'Missing required field: url' }), line);
    expect(bad).toBeInstanceOf(BadRequestError);
    expect(bad.message).toBe('Missing required field: url');
    expect(bad.requestId).toBe('req-1');
    const unauthorized = errorFromReply(reply(401, { error: 'Invalid API key' }), line);
    expect(unauthorized).toBeInstanceOf(UnauthorizedError);
    expect(unauthorized.advice).toBe(UNAUTHORIZED_ADVICE);
    const forbidden = errorFromReply(reply(403, { error: 'Client not linked' }), line);
    expect(forbidden).toBeInstanceOf(ForbiddenError);
    expect(forbidden.advice).toBe(FORBIDDEN_ADVICE);
    expect(errorFromReply(reply(405, { error: 'Use GET or POST' }), line)).toBeInstanceOf(
      MethodNotAllowedError,
    );
  });

  it('keeps the body of a 5xx for the report, and reads Retry-After of a 429', () => {
    const server = errorFromReply(reply(502, { error: 'upstream down' }), line);
    expect(server).toBeInstanceOf(ServerError);
    expect(server.body).toEqual({ error: 'upstream down' });
    expect(server.message).toContain('upstream down');
    expect(Date.parse(server.at)).not.toBeNaN();
    const limited = errorFromReply(reply(429, { error: 'slow down' }, { retryAfter: '2' }), line);
    expect(limited).toBeInstanceOf(RateLimitedError);
    expect((limited as RateLimitedError).retryAfterMs).toBe(2_000);
  });

  it('copes with a non-JSON error body and an unexpected status', () => {
    const html = errorFromReply(reply(500, '<html>Bad Gateway</html>'), line);
    expect(html).toBeInstanceOf(ServerError);
    expect(html.body).toBe('<html>Bad Gateway</html>');
    expect(errorFromReply(reply(404, ''), line)).toBeInstanceOf(InvalidResponseError);
  });
});
