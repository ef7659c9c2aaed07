/**
 * Errors a job throws for BullMQ to act on, with stable codes (STYLE §8). BullMQ's own control-flow errors
 * (UnrecoverableError, DelayedError, RateLimitError) are used where BullMQ must see its class.
 */

export const JobErrorCode = {
  UnknownAction: 'job_unknown_action',
  OutcomeAbsent: 'job_outcome_absent_retry',
  NeverSent: 'job_never_sent_retry',
  ReconcileFailed: 'job_reconcile_failed',
  SafeRepeat: 'job_safe_repeat',
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
    super(message, options);
  }
}
