import { Worker as BullWorker, DelayedError, UnrecoverableError } from 'bullmq';
import {
  ActionFailedError,
  ConnectionError,
  GatewayError,
  publicDetail,
  publicErrorCode,
  publicErrorLine,
  RateLimitedError,
  TimeoutError,
  UnknownOutcomeError,
} from '../gateway/index.js';
import { buildActionFailed, buildActionGaveUp, buildActionRejected } from '../views/action-result.js';
import { backOffQuietly, reconcileAfterUnknown } from './action-outcome.js';
import type { ActionJobOutcome } from './job-data.js';
import { JobErrorCode, markReported, RetryableJobError } from './job-errors.js';
import { checkpoint, type JobRun } from './job-run.js';

/**
 * What a failed POST means for the job:
 * - status:error → failed, the gateway's words and a Retry button; never retried automatically;
 * - 4xx → final (UnrecoverableError), explained with advice;
 * - 429 → everyone waits, the job goes back to the queue without spending an attempt;
 * - unknown outcome (5xx, timeout, dropped) → everyone backs off, then reconcile; never a blind re-POST;
 * - connection refused before sending → a plain retry.
 * A final answer stays final whatever happens while telling the channel: a Slack or Redis fault there is
 * logged, and the job still ends unrecoverable (else BullMQ would retry, and POST, a final failure).
 */
export async function handleActionError(run: JobRun, error: unknown): Promise<ActionJobOutcome> {
  const label = run.entry.label;
  if (error instanceof ActionFailedError) {
    return endFinally(run, error, async () => {
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
    });
  }
  if (error instanceof RateLimitedError) {
    await checkpoint(run, { step: 'queued' });
    await backOffQuietly(run, 'gateway 429', { everyone: true });
    throw BullWorker.RateLimitError();
  }
  if (error instanceof UnknownOutcomeError) return afterUnknownOutcome(run, error);
  if (error instanceof ConnectionError && error.neverSent) {
    await checkpoint(run, { step: 'queued' });
    return retryOrGiveUp(
      run,
      new RetryableJobError(JobErrorCode.NeverSent, 'the gateway could not be reached', { cause: error }),
    );
  }
  if (error instanceof GatewayError) {
    return endFinally(run, error, async () => {
      await checkpoint(run, { step: 'queued' });
      await run.status('failed', `refused by the gateway (${publicErrorCode(error)})`);
      const advice = error.advice ? { advice: error.advice } : {};
      // The gateway's own words help (a field it wants); a message built here would name its address.
      const message = publicDetail(error);
      await run.reply(buildActionRejected({ label, status: error.status, message, ...advice }));
    });
  }
  throw error;
}

/**
 * A 5xx, a timeout or a dropped connection: the POST may have done its work. Everyone backs off; a safe action
 * is simply tried again, any other reconciles first (never a blind re-POST).
 */
async function afterUnknownOutcome(run: JobRun, error: UnknownOutcomeError): Promise<ActionJobOutcome> {
  // The full message names the gateway's address: it goes to the log, never to Slack.
  run.log.warn(`unknown outcome (${error.underlying.code}); reconciling: ${error.message}`);
  // A 5xx is the gateway's last word: what it wrote is there after a short grace. After a timeout or a
  // lost connection it may still be working, so "nothing found" is believed only a full timeout later.
  const mayStillRun = error.underlying instanceof TimeoutError || error.underlying instanceof ConnectionError;
  const trustAbsentAfter =
    Date.now() + run.deps.reconcileGraceMs + (mayStillRun ? run.deps.actionTimeoutMs : 0);
  await checkpoint(run, { trustAbsentAfter }).catch((e) => run.log.warn('checkpoint failed', e));
  await backOffQuietly(run, `gateway ${error.underlying.code}`);
  if (run.entry.safeToRepeat) {
    return retryOrGiveUp(
      run,
      new RetryableJobError(JobErrorCode.SafeRepeat, publicErrorLine(error), { cause: error }),
    );
  }
  try {
    return await reconcileAfterUnknown(run);
  } catch (inner) {
    if (inner instanceof DelayedError) throw inner;
    return retryOrGiveUp(run, inner);
  }
}

/** Tells the channel (best effort) and ends the job for good. */
async function endFinally(run: JobRun, error: GatewayError, tell: () => Promise<void>): Promise<never> {
  run.log.warn(`final failure: ${error.code}: ${error.message}`);
  // BullMQ keeps this message as the job's failedReason, which `jobs` reads: code and time only.
  const final = new UnrecoverableError(publicErrorLine(error));
  try {
    await tell();
    markReported(final);
  } catch (telling) {
    // Not marked: the worker's final-failure report tries once more.
    run.log.warn('could not tell the channel about a final failure', telling);
  }
  throw final;
}

/** Throws the retryable error, after telling the channel when this was the last attempt. */
async function retryOrGiveUp(run: JobRun, error: unknown): Promise<never> {
  if (run.isLastAttempt && !(error instanceof UnrecoverableError)) {
    const message = publicErrorCode(error);
    try {
      await run.status('failed', 'gave up after repeated gateway faults');
      await run.reply(
        buildActionGaveUp({
          label: run.entry.label,
          message,
          at: new Date().toISOString(),
          jobKey: run.data.jobKey,
        }),
      );
      if (typeof error === 'object' && error !== null) markReported(error);
    } catch (telling) {
      run.log.warn('could not tell the channel the job gave up', telling);
    }
  }
  throw error;
}
