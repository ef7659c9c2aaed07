import { DelayedError } from 'bullmq';
import { GatewayError, publicErrorLine } from '../gateway/index.js';
import { referenceNames } from '../reads/index.js';
import { actionFingerprint, releaseJobClaim } from '../store/index.js';
import { buildOutcomeUnknown } from '../views/action-result.js';
import { buildActionResult, resultSummary } from '../views/result-card.js';
import type { ActionJobOutcome } from './job-data.js';
import { JobErrorCode, RetryableJobError } from './job-errors.js';
import { checkpoint, type JobRun } from './job-run.js';
import { reconcile } from './reconcile.js';

/**
 * How an action job ends, whichever path got there (the POST answered, a reconciliation found the record, a
 * person must decide): the ledger first, then the job's reply target. Shared by the processor
 * (action-job.ts) and the failure paths (action-failure.ts).
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Counts a gateway fault (see backOff); a Redis fault here is logged, never thrown (it must not decide the job). */
export async function backOffQuietly(
  run: JobRun,
  reason: string,
  options: { everyone?: boolean } = {},
): Promise<void> {
  await run.deps.backOff(reason, options).catch((error) => run.log.warn('backing off failed', error));
}

/** A good, prompt answer ends the fault streak; logged, never thrown. */
export async function faultsClearedQuietly(run: JobRun): Promise<void> {
  await run.deps.faultsCleared?.().catch((error) => run.log.warn('clearing the fault streak failed', error));
}

/**
 * An earlier run got as far as the POST. Returns the outcome when that settles the job; undefined when
 * reconciliation proved nothing was created, so this run may POST. "Nothing found" proves nothing while the
 * earlier POST may still be in flight (another run's, whose worker stalled or lost the lease) or still be
 * worked on by the gateway (after a timeout): until `trustAbsentAfter` the job waits and looks again.
 */
export async function settleEarlierAttempt(run: JobRun): Promise<ActionJobOutcome | undefined> {
  const { data, entry, deps } = run;
  let found: Awaited<ReturnType<typeof reconcile>>;
  try {
    found = await reconcile({
      gateway: deps.gateway,
      ledger: deps.ledger,
      entry,
      jobKey: data.jobKey,
      clientId: data.clientId,
      fields: data.fields,
      fingerprint: data.fingerprint ?? actionFingerprint(entry, data.clientId, data.fields),
      startedAt: data.startedAt ?? data.enqueuedAt,
    });
  } catch (error) {
    deps.metrics?.reconciled('failed');
    return readFailed(run, error);
  }
  deps.metrics?.reconciled(found.kind);
  if (found.kind === 'found') {
    run.log.info(`reconciled: found record ${found.recordId ?? '(no id)'} via ${found.via}`);
    return recordSuccess(run, found.record, {
      note: 'Found the record the first attempt created; nothing was run twice.',
      reconciled: true,
    });
  }
  if (found.kind === 'unknown') return needsAttention(run, found.reason);
  const trustAfter =
    data.trustAbsentAfter ??
    (data.startedAt ?? data.enqueuedAt) + deps.actionTimeoutMs + deps.reconcileGraceMs;
  if (Date.now() < trustAfter) {
    run.log.info('the earlier POST may still be under way; looking again once it must have ended');
    await run.job.moveToDelayed(trustAfter, run.token);
    throw new DelayedError();
  }
  run.log.info('reconciled: the earlier attempt created nothing; posting again');
  return undefined;
}

/**
 * The gateway could not be read to look for the record. A read that will not change (4xx) or a last attempt
 * stops the job and asks a person; otherwise the job tries again later. Never a POST on a guess.
 */
async function readFailed(run: JobRun, error: unknown): Promise<ActionJobOutcome> {
  run.log.warn('reconciliation read failed', error);
  if ((error instanceof GatewayError && !error.retryable) || run.isLastAttempt) {
    return needsAttention(run, `the bot could not look for the record (${publicErrorLine(error)})`);
  }
  throw new RetryableJobError(JobErrorCode.ReconcileFailed, 'could not read the gateway to reconcile', {
    cause: error,
  });
}

/** Waits out the gateway's write, then reconciles; used straight after an unknown outcome. */
export async function reconcileAfterUnknown(run: JobRun): Promise<ActionJobOutcome> {
  await sleep(run.deps.reconcileGraceMs);
  const settled = await settleEarlierAttempt(run);
  if (settled) return settled;
  throw new RetryableJobError(
    JobErrorCode.OutcomeAbsent,
    'the gateway answered with an unknown outcome and no record was created; retrying',
  );
}

export async function recordSuccess(
  run: JobRun,
  record: Record<string, unknown>,
  options: { note?: string; reconciled?: boolean } = {},
): Promise<ActionJobOutcome> {
  const { data, entry, deps } = run;
  const recordId = record.id === undefined || record.id === null ? undefined : String(record.id);
  const fp = data.fingerprint ?? actionFingerprint(entry, data.clientId, data.fields);
  await deps.ledger.recordSuccess({
    recordId,
    jobKey: data.jobKey,
    action: data.action,
    clientId: data.clientId,
    fingerprint: fp,
    fields: data.fields,
    requestedBy: data.requestedBy,
  });
  const result = options.note ? { ...record, __note: options.note } : record;
  await checkpoint(run, { step: 'done', ...(recordId ? { recordId } : {}), result });
  // The ledger now answers for this fingerprint: an identical request may ask against it from here on.
  await releaseJobClaim(deps.redis, deps.prefix, data).catch((e) => run.log.warn('in-flight release', e));
  const outcome = await finishSuccess(run, result);
  return options.reconciled ? { ...outcome, reconciled: true } : outcome;
}

/** The Slack side of a success; a re-run after a Slack failure starts here. */
export async function finishSuccess(run: JobRun, result: Record<string, unknown>): Promise<ActionJobOutcome> {
  const { __note, ...record } = result;
  const note = typeof __note === 'string' ? __note : undefined;
  const recordId = run.data.recordId;
  const fields = run.data.fields;
  // The status message says the result in a few words; its thread shows the whole card.
  const summary = resultSummary(run.entry, record, fields);
  await run.status('done', note ? 'found the record the first attempt created' : undefined, {
    ...(summary ? { result: summary } : {}),
  });
  // The record's category and author by name (a read of each small naming dataset; failing, the ids show).
  const names = await referenceNames(
    { gateway: run.deps.gateway, logger: run.log },
    run.data.clientId,
    run.entry.recordResource,
    [record],
  );
  await run.reply(
    buildActionResult(run.entry, record, {
      fields,
      jobKey: run.data.jobKey,
      ...(note ? { note } : {}),
      ...(Object.keys(names).length ? { names } : {}),
    }),
  );
  return { outcome: 'done', ...(recordId ? { recordId } : {}) };
}

async function needsAttention(run: JobRun, reason: string): Promise<ActionJobOutcome> {
  run.log.warn(`needs attention: ${reason}`);
  await run.status('needs-attention', 'outcome unknown: a person must decide');
  await run.reply(buildOutcomeUnknown({ label: run.entry.label, jobKey: run.data.jobKey, reason }));
  return { outcome: 'needs-attention' };
}
