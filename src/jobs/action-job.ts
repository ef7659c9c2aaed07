import { DelayedError, type Job, UnrecoverableError } from 'bullmq';
import type { Redis } from 'ioredis';
import type { ActionEntry, Catalogue } from '../actions/catalogue.js';
import type { GatewayClient } from '../gateway/client.js';
import type { AppLogger } from '../logger.js';
import { type ActionLedger, actionFingerprint } from '../store/ledger.js';
import { buildActionResult, buildOutcomeUnknown } from '../views/action-result.js';
import { buildJobStatus, type JobStatusState, subjectOf } from '../views/job-status.js';
import { handleActionError } from './action-failure.js';
import { JobErrorCode, RetryableJobError } from './job-errors.js';
import { acquireLease, leaseKey } from './lease.js';
import type { ActionJobData, ActionJobOutcome } from './queue.js';
import { reconcile } from './reconcile.js';
import type { SlackMessage, SlackPoster } from './slack-poster.js';

/**
 * One action job, start to finish (DESIGN §7, §8): status "running" → lease → (reconcile if an earlier run
 * got as far as the POST) → checkpoint → POST → ledger → status and thread reply. A POST is repeated only
 * when reconciliation proved the earlier one created nothing, or the action is safe to repeat.
 */

export interface ActionJobDeps {
  redis: Redis;
  prefix: string;
  gateway: GatewayClient;
  poster: SlackPoster;
  ledger: ActionLedger;
  catalogue: () => Catalogue;
  actionTimeoutMs: number;
  leaseMs: number;
  reconcileGraceMs: number;
  /** Answers slower than this back everyone off. */
  slowMs: number;
  /** Backs every worker off for `ms` (worker.rateLimit). */
  backOff: (reason: string) => Promise<void>;
  logger: AppLogger;
}

export type ActionJob = Job<ActionJobData, ActionJobOutcome>;

/** What the processor hands the failure and success paths. */
export interface JobRun {
  job: ActionJob;
  token: string | undefined;
  entry: ActionEntry;
  deps: ActionJobDeps;
  log: AppLogger;
  data: ActionJobData;
  /** Posts the channel status message (creating it when the web role did not). */
  status(state: JobStatusState, summary?: string): Promise<void>;
  reply(message: SlackMessage): Promise<void>;
  isLastAttempt: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function processActionJob(
  job: ActionJob,
  token: string | undefined,
  deps: ActionJobDeps,
): Promise<ActionJobOutcome> {
  const log = deps.logger.child({ job: job.id });
  const entry = deps.catalogue().byAction(job.data.action);
  if (!entry) {
    throw new UnrecoverableError(
      `${JobErrorCode.UnknownAction}: the gateway offers no action "${job.data.action}"`,
    );
  }
  const run = createRun(job, token, entry, deps, log);
  if (run.data.step === 'done') return finishSuccess(run, run.data.result ?? { id: run.data.recordId });

  const taken = await acquireLease(deps.redis, leaseKey(deps.prefix, run.data.jobKey), deps.leaseMs);
  if (!('lease' in taken)) {
    // Another run of this job holds the lease (an overlap): come back when it has had its say.
    log.warn(`lease held by another run; delaying ${taken.heldForMs} ms`);
    await job.moveToDelayed(Date.now() + taken.heldForMs + 50, token);
    throw new DelayedError();
  }
  let running: Promise<void> | undefined;
  const showRunning = () => {
    running ??= run.status('running').catch((error) => log.warn('status update failed', error));
    return running;
  };
  try {
    if (run.data.step === 'posting' && !entry.safeToRepeat) {
      await showRunning();
      const settled = await settleEarlierAttempt(run);
      if (settled) return settled;
    }
    await checkpoint(run, {
      step: 'posting',
      startedAt: Date.now(),
      fingerprint: actionFingerprint(entry, run.data.clientId, run.data.fields),
    });
    const began = Date.now();
    let result: Awaited<ReturnType<GatewayClient['act']>>;
    // The POST leaves first and the "running" update follows while it runs: Slack's client costs a few
    // milliseconds of CPU that would otherwise sit between the job's start and the POST.
    const posting = deps.gateway.act(run.data.action, run.data.clientId, run.data.fields, {
      timeoutMs: deps.actionTimeoutMs,
    });
    setImmediate(showRunning);
    try {
      result = await posting;
    } catch (error) {
      await showRunning();
      return await handleActionError(run, error);
    }
    if (Date.now() - began > deps.slowMs) await deps.backOff('slow answer');
    await showRunning();
    return await recordSuccess(run, result.data);
  } finally {
    await taken.lease.release().catch((error) => log.warn('lease release failed', error));
  }
}

/**
 * An earlier run got as far as the POST. Returns the outcome when that settles the job; undefined when
 * reconciliation proved nothing was created, so this run may POST.
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
    run.log.warn('reconciliation read failed; will try again', error);
    throw new RetryableJobError(JobErrorCode.ReconcileFailed, 'could not read the gateway to reconcile', {
      cause: error,
    });
  }
  if (found.kind === 'found') {
    run.log.info(`reconciled: found record ${found.recordId ?? '(no id)'} via ${found.via}`);
    return recordSuccess(run, found.record, {
      note: 'Found the record the first attempt created; nothing was run twice.',
      reconciled: true,
    });
  }
  if (found.kind === 'unknown') return needsAttention(run, found.reason);
  run.log.info('reconciled: the earlier attempt created nothing; posting again');
  return undefined;
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

export async function checkpoint(run: JobRun, patch: Partial<ActionJobData>): Promise<void> {
  run.data = { ...run.data, ...patch };
  await run.job.updateData(run.data);
}

function createRun(
  job: ActionJob,
  token: string | undefined,
  entry: ActionEntry,
  deps: ActionJobDeps,
  log: AppLogger,
): JobRun {
  const attempts = job.opts.attempts ?? 1;
  const run: JobRun = {
    job,
    token,
    entry,
    deps,
    log,
    data: { ...job.data },
    isLastAttempt: job.attemptsMade + 1 >= attempts,
    status: async (state, summary) => {
      const subject = subjectOf(run.data.fields);
      const message = buildJobStatus({
        label: entry.label,
        clientLabel: run.data.clientLabel,
        requestedBy: run.data.requestedBy,
        state,
        ...(subject ? { subject } : {}),
        ...(summary ? { summary } : {}),
        ...(run.data.retryOf ? { retryOf: run.data.retryOf } : {}),
      });
      if (run.data.statusTs) {
        await deps.poster.update(run.data.channel, run.data.statusTs, message);
        return;
      }
      const ts = await deps.poster.post(run.data.channel, message);
      await checkpoint(run, { statusTs: ts });
    },
    reply: async (message) => {
      if (!run.data.statusTs) await run.status('running');
      await deps.poster.reply(run.data.channel, run.data.statusTs!, message);
    },
  };
  return run;
}
