import { DelayedError, UnrecoverableError } from 'bullmq';
import type { GatewayClient } from '../gateway/index.js';
import { actionFingerprint } from '../store/index.js';
import { buildApprovalMissing } from '../views/action-result.js';
import { handleActionError } from './action-failure.js';
import {
  backOffQuietly,
  faultsClearedQuietly,
  finishSuccess,
  recordSuccess,
  settleEarlierAttempt,
} from './action-outcome.js';
import type { ActionJobData, ActionJobOutcome } from './job-data.js';
import { JobErrorCode, markReported } from './job-errors.js';
import {
  type ActionJob,
  type ActionJobDeps,
  createRun,
  type JobRun,
  jobHashKey,
  storedData,
} from './job-run.js';
import { acquireLease, type Lease, leaseKey } from './lease.js';

/**
 * One action job, start to finish: lease → the job's data as stored (not as this run first
 * read it) → (reconcile if an earlier run got as far as the POST) → checkpoint under the lease → POST →
 * ledger → status and thread reply (the ledger before any awaited Slack call). A POST is repeated only when
 * reconciliation proved the earlier one created nothing (and could no longer be in flight), or the action is
 * safe to repeat.
 */

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
  const entry = (await deps.catalogue()).byAction(job.data.action);
  if (!entry) {
    // Told in the thread by the worker's final-failure report.
    throw new UnrecoverableError(
      `${JobErrorCode.UnknownAction}: the gateway offers no action "${job.data.action}"`,
    );
  }
  // The approval gate and the lease are independent Redis round trips, taken together (the gate's
  // approved → running is idempotent for this job, so an overlap that finds the lease held loses nothing).
  const [allowed, taken] = await Promise.all([
    entry.guarded ? (deps.approvals?.allowsRun(job.data) ?? false) : true,
    acquireLease(deps.redis, leaseKey(deps.prefix, job.data.jobKey), deps.leaseMs),
  ]);
  if (!allowed) {
    if ('lease' in taken) await taken.lease.release().catch((e) => log.warn('lease release failed', e));
    return refuseUnapproved(createRun(job, token, entry, deps, log));
  }
  if (!('lease' in taken)) {
    // Another run of this job holds the lease (an overlap): come back when it has had its say.
    log.warn(`lease held by another run; delaying ${taken.heldForMs} ms`);
    await job.moveToDelayed(Date.now() + taken.heldForMs + 50, token);
    throw new DelayedError();
  }
  return runUnderLease(createRun(job, token, entry, deps, log), taken.lease);
}

/** The run while it holds the lease: from the data as stored to the job's outcome; then the lease goes back. */
async function runUnderLease(run: JobRun, lease: Lease): Promise<ActionJobOutcome> {
  let running: Promise<void> | undefined;
  try {
    // This run's copy of the data was read when it was fetched; an overlapping run may have checkpointed
    // since ("posting", even "done"). Deciding from the copy could POST a second time.
    const stored = await storedData(run.deps.redis, run.job);
    if (stored) run.data = { ...stored };
    if (run.data.step === 'done')
      return await finishSuccess(run, run.data.result ?? { id: run.data.recordId });

    // Not awaited here: Slack trouble must not delay the POST or the ledger. Status updates run in call order
    // (see createRun), so calling this first keeps "running" ahead of whatever the job says next.
    const showRunning = () => {
      running ??= run.status('running').catch((error) => run.log.warn('status update failed', error));
      return running;
    };
    if (run.data.step === 'posting' && !run.entry.safeToRepeat) {
      void showRunning();
      const settled = await settleEarlierAttempt(run);
      if (settled) return settled;
    }
    await checkpointPosting(run, lease);
    return await post(run, showRunning);
  } finally {
    // Awaited once the job has decided (the worker's Slack client gives up within seconds): a stale "running"
    // must not land after what a later attempt or the final-failure report says.
    await running;
    await lease.release().catch((error) => run.log.warn('lease release failed', error));
  }
}

/**
 * The "posting" checkpoint, written under the lease and held by a replica before the POST: a run that finds
 * it reconciles before it may POST again. A run that lost the lease is delayed instead.
 */
async function checkpointPosting(run: JobRun, lease: Lease): Promise<void> {
  const posting: Partial<ActionJobData> = {
    step: 'posting',
    startedAt: Date.now(),
    fingerprint: actionFingerprint(run.entry, run.data.clientId, run.data.fields),
    trustAbsentAfter: undefined,
  };
  if (!(await checkpointUnderLease(run, lease, posting))) {
    // The lease ran out under us (a blocked event loop) and may be another run's now: it decides, not us.
    run.log.warn('lease lost before the POST; leaving the job to the run that holds it');
    await run.job.moveToDelayed(Date.now() + run.deps.leaseMs, run.token);
    throw new DelayedError();
  }
  // A failover that lost the checkpoint would let the next run POST again without reconciling first.
  await run.deps.replicaWait?.after(run.deps.redis, jobHashKey(run.job));
}

/** The POST, then the ledger (a success), or what the failure means (action-failure.ts). */
async function post(run: JobRun, showRunning: () => Promise<void>): Promise<ActionJobOutcome> {
  const began = Date.now();
  let result: Awaited<ReturnType<GatewayClient['act']>>;
  // The POST leaves first and the "running" update follows while it runs: Slack's client costs a few
  // milliseconds of CPU that would otherwise sit between the job's start and the POST.
  const sent = run.deps.gateway.act(run.data.action, run.data.clientId, run.data.fields, {
    timeoutMs: run.deps.actionTimeoutMs,
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
  if (Date.now() - began > run.deps.slowMs) await backOffQuietly(run, 'slow answer');
  else void faultsClearedQuietly(run);
  return await recordSuccess(run, result.data);
}

/** Writes the checkpoint only while this run still holds the lease; false when it lost it. */
async function checkpointUnderLease(run: JobRun, lease: Lease, patch: Partial<ActionJobData>) {
  const next: ActionJobData = { ...run.data, ...patch };
  if (!(await lease.writeIfHeld(jobHashKey(run.job), 'data', JSON.stringify(next)))) return false;
  run.data = next;
  run.job.data = next;
  return true;
}

/** Tells the job's message and thread (best effort) and ends the job for good; nothing reaches the gateway. */
async function refuseUnapproved(run: JobRun): Promise<never> {
  const error = new UnrecoverableError(
    `${JobErrorCode.ApprovalMissing}: ${run.entry.action} is guarded and the job carries no approved approval`,
  );
  try {
    await run.status('failed', 'not run: it needs an approval');
    await run.reply(buildApprovalMissing({ label: run.entry.label }));
    markReported(error);
  } catch (telling) {
    // Not marked: the worker's final-failure report tries once more.
    run.log.warn('could not tell the channel about a refused guarded job', telling);
  }
  throw error;
}
