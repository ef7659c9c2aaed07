import { publicErrorCode } from '../gateway/index.js';

/**
 * Errors a job throws for BullMQ to act on, with stable codes. BullMQ's own control-flow errors
 * (UnrecoverableError, DelayedError, RateLimitError) are used where BullMQ must see its class.
 */

export const JobErrorCode = {
  UnknownAction: 'job_unknown_action',
  OutcomeAbsent: 'job_outcome_absent_retry',
  NeverSent: 'job_never_sent_retry',
  ReconcileFailed: 'job_reconcile_failed',
  SafeRepeat: 'job_safe_repeat',
  ApprovalMissing: 'job_approval_missing',
} as const;
export type JobErrorCode = (typeof JobErrorCode)[keyof typeof JobErrorCode];

/** A retryable job failure: BullMQ tries again after its backoff (attempts are few). */
export class RetryableJobError extends Error {
  override name = 'RetryableJobError';
  constructor(
    readonly code: JobErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    // The code leads the message: BullMQ keeps only the message (failedReason), and `jobs` shows the code.
    super(`${code}: ${message}`, options);
  }
}

/** BullMQ's own words for a job whose workers died mid-run more often than maxStalledCount. */
const STALLED = /stalled more than allowable limit/;

/**
 * The code of a failure as `jobs` and threads may show it: never a message, which can name the gateway's address.
 * Works on the error or on the failedReason BullMQ kept of it.
 */
export function failureCode(error: unknown): string {
  const message = typeof error === 'string' ? error : error instanceof Error ? error.message : '';
  if (STALLED.test(message)) return 'job_stalled';
  return publicErrorCode(typeof error === 'string' ? new Error(error) : error);
}

/**
 * Errors whose outcome the channel has already been told. The worker reports every other final failure
 * itself (see reportFinalFailure), so no job ends without a word in its thread, and none is told twice.
 */
const reported = new WeakSet<object>();

export function markReported<E extends object>(error: E): E {
  reported.add(error);
  return error;
}

export function wasReported(error: unknown): boolean {
  return typeof error === 'object' && error !== null && reported.has(error);
}
