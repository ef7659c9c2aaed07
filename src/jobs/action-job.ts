import { DelayedError, UnrecoverableError } from 'bullmq';
import type { GatewayClient } from '../gateway/client.js';
import { GatewayError, publicErrorLine } from '../gateway/errors.js';
import { releaseJobClaim } from '../store/in-flight.js';
import { actionFingerprint } from '../store/ledger.js';
import { buildActionResult, buildOutcomeUnknown } from '../views/action-result.js';
import { handleActionError } from './action-failure.js';
import { hasApprovedApproval, refuseUnapproved } from './approval-gate.js';
import { JobErrorCode, RetryableJobError } from './job-errors.js';
import {
  type ActionJob,
  type ActionJobDeps,
  checkpoint,
  createRun,
  type JobRun,
  jobHashKey,
  storedData,
} from './job-run.js';
import { acquireLease, type Lease, leaseKey } from './lease.js';
import type { ActionJobData, ActionJobOutcome } from './queue.js';
import { reconcile } from './reconcile.js';

/**
 * One action job, start to finish (DESIGN §7, §8): lease → the job's data as stored (not as this run first
 * read it) → (reconcile if an earlier run got as far as the POST) → checkpoint under the lease → POST →
 * ledger → status and thread reply (the ledger before any awaited Slack call). A POST is repeated only when
 * reconciliation proved the earlier one created nothing (and could no longer be in flight), or the action is
 * safe to repeat.
 */

export type { ActionJob, ActionJobDeps, JobRun } from './job-run.js';
export { checkpoint };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function processActionJob(
  job: ActionJob,
  token: string | undefined,
  deps: ActionJobDeps,
): Promise<ActionJobOutcome> {
  const log = deps.logger.child({
    job: job.id,
    channel: job.data.replyTo.channel,
    user: job.data.requestedBy,
  });
  const entry = deps.catalogue().byAction(job.data.action);
  if (!entry) {
    // Told in the thread by the worker's final-failure report.
    throw new UnrecoverableError(
      `${JobErrorCode.UnknownAction}: the gateway offers no action "${job.data.action}"`,
    );
  }
  if (entry.guarded && !hasApprovedApproval(job.data)) {
    return refuseUnapproved(createRun(job, token, entry, deps, log));
  }
  const taken = await acquireLease(deps.redis, leaseKey(deps.prefix, job.data.jobKey), deps.leaseMs);
  if (!('lease' in taken)) {
    // Another run of this job holds the lease (an overlap): come back when it has had its say.
    log.warn(`lease held by another run; delaying ${taken.heldForMs} ms`);
    await job.moveToDelayed(Date.now() + taken.heldForMs + 50, token);
    throw new DelayedError();
  }
  const { lease } = taken;
  let running: Promise<void> | undefined;
  try {
    const run = createRun(job, token, entry, deps, log);
    // This run's copy of the data was read when it was fetched; an overlapping run may have checkpointed
    // since ("posting", even "done"). Deciding from the copy could POST a second time.
    const stored = await storedData(deps.redis, job);
    if (stored) run.data = { ...stored };
    if (run.data.step === 'done')
      return await finishSuccess(run, run.data.result ?? { id: run.data.recordId });

    // Not awaited here: Slack trouble must not delay the POST or the ledger. Status updates run in call order
    // (see createRun), so calling this first keeps "running" ahead of whatever the job says next.
    const showRunning = () => {
      running ??= run.status('running').catch((error) => log.warn('status update failed', error));
      return running;
    };
    if (run.data.step === 'posting' && !entry.safeToRepeat) {
      void showRunning();
      const settled = await settleEarlierAttempt(run);
      if (settled) return settled;
    }
    const posting: Partial<ActionJobData> = {
      step: 'posting',
      startedAt: Date.now(),
      fingerprint: actionFingerprint(entry, run.data.clientId, run.data.fields),
      trustAbsentAfter: undefined,
    };
    if (!(await checkpointUnderLease(run, lease, posting))) {
      // The lease ran out under us (a blocked event loop) and may be another run's now: it decides, not us.
      log.warn('lease lost before the POST; leaving the job to the run that holds it');
      await job.moveToDelayed(Date.now() + deps.leaseMs, token);
      throw new DelayedError();
    }
    const began = Date.now();
    let result: Awaited<ReturnType<GatewayClient['act']>>;
    // The POST leaves first and the "running" update follows while it runs: Slack's client costs a few
    // milliseconds of CPU that would otherwise sit between the job's start and the POST.
    const sent = deps.gateway.act(run.data.action, run.data.clientId, run.data.fields, {
      timeoutMs: deps.actionTimeoutMs,
    });
    setImmediate(showRunning);
    try {
      result = await sent;
    } catch (error) {
      void showRunning();
      return await handleActionError(run, error);
    }
    void showRunning();
    // Nothing between the answer and the ledger may throw (a throw here would re-run a POST that succeeded),
    // and no Slack call comes before it: a Slack outage must never delay or lose the record of a success.
    if (Date.now() - began > deps.slowMs) await backOffQuietly(run, 'slow answer');
    return await recordSuccess(run, result.data);
  } finally {
    // Awaited once the job has decided (the worker's Slack client gives up within seconds): a stale "running"
    // must not land after what a later attempt or the final-failure report says.
    await running;
    await lease.release().catch((error) => log.warn('lease release failed', error));
  }
}

/** Writes the checkpoint only while this run still holds the lease; false when it lost it. */
async function checkpointUnderLease(run: JobRun, lease: Lease, patch: Partial<ActionJobData>) {
  const next: ActionJobData = { ...run.data, ...patch };
  if (!(await lease.writeIfHeld(jobHashKey(run.job), 'data', JSON.stringify(next)))) return false;
  run.data = next;
  run.job.data = next;
  return true;
}

/** Backs every worker off; a Redis fault here is logged, never thrown (it must not decide the job). */
export async function backOffQuietly(run: JobRun, reason: string): Promise<void> {
  await run.deps.backOff(reason).catch((error) => run.log.warn('backing off failed', error));
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
async function finishSuccess(run: JobRun, result: Record<string, unknown>): Promise<ActionJobOutcome> {
  const { __note, ...record } = result;
  const note = typeof __note === 'string' ? __note : undefined;
  const recordId = run.data.recordId;
  await run.status('done', note ? 'found the record the first attempt created' : undefined);
  await run.reply(buildActionResult(run.entry, record, note ? { note } : {}));
  return { outcome: 'done', ...(recordId ? { recordId } : {}) };
}

export async function needsAttention(run: JobRun, reason: string): Promise<ActionJobOutcome> {
  run.log.warn(`needs attention: ${reason}`);
  await run.status('needs-attention', 'outcome unknown: a person must decide');
  await run.reply(buildOutcomeUnknown({ label: run.entry.label, jobKey: run.data.jobKey, reason }));
  return { outcome: 'needs-attention' };
}
