import { describe, expect, it } from 'vitest';
import {
  BadRequestError,
  ConnectionError,
  publicDetail,
  publicErrorCode,
  publicErrorLine,
  ServerError,
  TimeoutError,
  UnknownOutcomeError,
} from '../../src/gateway/errors.js';
import { errorFromReply } from '../../src/gateway/http.js';
import { failureCode, JobErrorCode, RetryableJobError } from '../../src/jobs/job-errors.js';

const LINE = 'POST http://10.1.2.3:8080/functions/v1/gateway action=seo_audit client_id=acme';

describe('what people and probes see of a failure', () => {
  it('gives a gateway error’s code, status and time, never its request line', () => {
    const server = new ServerError(`Gateway server error, HTTP 502: bad gateway (${LINE})`, { status: 502 });
    expect(publicErrorLine(server)).toBe(`gateway_server_error (HTTP 502) at ${server.at}`);
    const unknown = new UnknownOutcomeError(
      `The outcome of ${LINE} is unknown`,
      new TimeoutError(`t (${LINE})`),
    );
    expect(publicErrorCode(unknown)).toBe('gateway_unknown_outcome after gateway_timeout');
  });

  it('describes a job error by the gateway error it wraps', () => {
    const cause = new ConnectionError(`Could not reach the gateway (${LINE})`, { neverSent: true });
    const job = new RetryableJobError(JobErrorCode.NeverSent, 'the gateway could not be reached', { cause });
    expect(publicErrorCode(job)).toBe('gateway_connection');
    expect(job.message.startsWith('job_never_sent_retry:')).toBe(true);
  });

  it('turns a stored failedReason into a code, whatever its message says', () => {
    expect(failureCode(`gateway_server_error: Gateway server error, HTTP 500 (${LINE})`)).toBe(
      'gateway_server_error',
    );
    expect(failureCode(`The outcome of ${LINE} is unknown`)).toBe('internal_error');
    expect(failureCode('job stalled more than allowable limit')).toBe('job_stalled');
    expect(failureCode(new Error(`connect ECONNREFUSED ${LINE}`))).toBe('internal_error');
  });

  it('shows a refusal in the gateway’s own words or the client’s own check, else by its code', () => {
    const reply = (status: number, text: string) => ({
      status,
      requestId: 'r1',
      retryAfter: undefined,
      text,
    });
    expect(publicDetail(errorFromReply(reply(403, '{"error":"Client not linked"}'), LINE))).toBe(
      'Client not linked',
    );
    const bare = errorFromReply(reply(400, ''), LINE);
    expect(bare.message).toContain('http://10.1.2.3');
    expect(publicDetail(bare)).toMatch(/^gateway_bad_request \(HTTP 400\) at /);
    const local = new BadRequestError('order must be one of created_at, updated_at');
    expect(publicDetail(local)).toBe('order must be one of created_at, updated_at');
  });
});
