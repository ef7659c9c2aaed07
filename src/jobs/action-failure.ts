import { Worker as BullWorker, UnrecoverableError } from 'bullmq';
import {
  ActionFailedError,
  ConnectionError,
  GatewayError,
  RateLimitedError,
  UnknownOutcomeError,
} from '../gateway/errors.js';
import { buildActionFailed, buildActionGaveUp, buildActionRejected } from '../views/action-result.js';
import { checkpoint, type JobRun, reconcileAfterUnknown } from './action-job.js';
import { JobErrorCode, RetryableJobError } from './job-errors.js';
import type { ActionJobOutcome } from './queue.js';

/**
 * What a failed POST means for the job (DESIGN §7):
 * - status:error → failed, the gateway's words and a Retry button; never retried automatically;
 * - 4xx → final (UnrecoverableError), explained with advice;
 * - 429 → everyone waits, the job goes back to the queue without spending an attempt;
 * - unknown outcome (5xx, timeout, dropped) → everyone backs off, then reconcile; never a blind re-POST;
 * - connection refused before sending → a plain retry.
 */
export async function handleActionError(run: JobRun, error: unknown): Promise<ActionJobOutcome> {
  const label = run.entry.label;
  if (error instanceof ActionFailedError) {
    await checkpoint(run, { step: 'queued' });
    await run.status('failed', `the gateway reported status_code ${error.statusCode ?? 'unknown'}`);
    await run.reply(
      buildActionFailed({
        label,
        statusCode: error.statusCode,
        message: error.message,
        jobKey: run.data.jobKey,
      }),
    );
    throw new UnrecoverableError(`${error.code}: ${error.message}`);
  }
  if (error instanceof RateLimitedError) {
    await checkpoint(run, { step: 'queued' });
    await run.deps.backOff('gateway 429');
    throw BullWorker.RateLimitError();
  }
  if (error instanceof UnknownOutcomeError) {
    run.log.warn(`unknown outcome (${error.underlying.code}); reconciling`);
    await run.deps.backOff(`gateway ${error.underlying.code}`);
    if (run.entry.safeToRepeat) {
      return retryOrGiveUp(
        run,
        new RetryableJobError(JobErrorCode.SafeRepeat, error.message, { cause: error }),
      );
    }
    try {
      return await reconcileAfterUnknown(run);
    } catch (inner) {
      return retryOrGiveUp(run, inner);
    }
  }
  if (error instanceof ConnectionError && error.neverSent) {
    await checkpoint(run, { step: 'queued' });
    return retryOrGiveUp(
      run,
      new RetryableJobError(JobErrorCode.NeverSent, 'the gateway could not be reached', { cause: error }),
    );
  }
  if (error instanceof GatewayError) {
    await run.status('failed', error.message);
    const advice = error.advice ? { advice: error.advice } : {};
    await run.reply(buildActionRejected({ label, status: error.status, message: error.message, ...advice }));
    throw new UnrecoverableError(`${error.code}: ${error.message}`);
  }
  throw error;
}

/** Throws the retryable error, after telling the channel when this was the last attempt. */
async function retryOrGiveUp(run: JobRun, error: unknown): Promise<never> {
  if (run.isLastAttempt && !(error instanceof UnrecoverableError)) {
    const message = error instanceof Error ? error.message : String(error);
    await run.status('failed', 'gave up after repeated gateway faults');
    await run.reply(
      buildActionGaveUp({
        label: run.entry.label,
        message,
        at: new Date().toISOString(),
        jobKey: run.data.jobKey,
      }),
    );
  }
  throw error;
}
