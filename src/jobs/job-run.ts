import type { Job } from 'bullmq';
import type { ActionEntry, Catalogue } from '../actions/index.js';
import type { GatewayClient } from '../gateway/index.js';
import type { AppLogger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { Redis } from '../redis/connection.js';
import type { ReplicaWait } from '../redis/replica.js';
import type { ThreadOutbound } from '../slack/reply-target.js';
import type { ActionLedger } from '../store/index.js';
import type { SlackMessage } from '../views/blocks.js';
import { buildJobStatus } from '../views/job-status.js';
import { actionTitle } from '../views/template.js';
import type { ActionJobData, ActionJobOutcome } from './job-data.js';
import type { JobState } from './job-state.js';
import { bullKeys } from './rate-limit.js';

/** One run of an action job: its dependencies, its data as it moves, and its Slack side. */

export interface ActionJobDeps {
  redis: Redis;
  prefix: string;
  gateway: GatewayClient;
  /** Delivers to the job's reply target (the outbound's thread messages). */
  outbound: ThreadOutbound;
  ledger: ActionLedger;
  /** The catalogue source's getter (actions/catalogue-source.ts); tests hand a fixed one. */
  catalogue: () => Catalogue | Promise<Catalogue>;
  actionTimeoutMs: number;
  leaseMs: number;
  reconcileGraceMs: number;
  /** Answers slower than this back everyone off. */
  slowMs: number;
  /**
   * Counts a gateway fault; every worker backs off only once faults persist (`faultStreak`, rate-limit.ts), or at once with
   * `everyone` (a 429: the gateway said so).
   */
  backOff: (reason: string, options?: { everyone?: boolean }) => Promise<void>;
  /** A good answer: the fault streak ends. */
  faultsCleared?: () => Promise<void>;
  /** Waits for a replica to hold the "posting" checkpoint before the POST (redis/replica.ts). */
  replicaWait?: ReplicaWait | undefined;
  logger: AppLogger;
  metrics?: Metrics;
  /** The approvals feature's side of a guarded job; without it a guarded job never runs. */
  approvals?: ApprovalHooks | undefined;
}

/** How an action job ended, for the approval it carried. */
export type JobEnd = { outcome: ActionJobOutcome } | { error: unknown };

/** How a request ended for good: its job's end, or its job cancelled before it started (and by whom). */
export type RequestEnd = JobEnd | { cancelledBy: string };

/** "Request finished": told once a request has ended for good; whatever waits on a request's end listens. */
export type RequestFinished = (data: ActionJobData, ended: RequestEnd) => Promise<void>;

/**
 * What the action worker asks of the approvals feature (approvals/ provides it, the composition root hands it
 * in): jobs/ knows queues, not approvals.
 */
export interface ApprovalHooks {
  /** The worker's own gate: true only when the job's approval is approved for this job and payload. */
  allowsRun(data: ActionJobData): Promise<boolean>;
  /** An approved job ended: its approval and its card say how. */
  ended(data: ActionJobData, ended: JobEnd): Promise<void>;
  /** An approved job was cancelled before it started: its approval is cancelled too, and its card says by whom. */
  cancelled(data: ActionJobData, by: string): Promise<void>;
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
  status(state: JobState, summary?: string, options?: { result?: string }): Promise<void>;
  reply(message: SlackMessage): Promise<void>;
  isLastAttempt: boolean;
}

/** The Redis hash BullMQ keeps the job in (its `data` field is the job's data; see rate-limit.ts). */
export function jobHashKey(job: ActionJob): string {
  return bullKeys(job.prefix, job.queueName).job(String(job.id));
}

/**
 * The job's data as stored now. A run's Job object carries the data read when the run was fetched; an
 * overlapping run may have checkpointed since (up to "done"), so decisions under the lease use this.
 */
export async function storedData(redis: Redis, job: ActionJob): Promise<ActionJobData | undefined> {
  const raw = await redis.hget(jobHashKey(job), 'data');
  if (!raw) return undefined;
  try {
    return JSON.parse(raw) as ActionJobData;
  } catch {
    return undefined;
  }
}

export async function checkpoint(run: JobRun, patch: Partial<ActionJobData>): Promise<void> {
  run.data = { ...run.data, ...patch };
  await run.job.updateData(run.data);
}

export function createRun(
  job: ActionJob,
  token: string | undefined,
  entry: ActionEntry,
  deps: ActionJobDeps,
  log: AppLogger,
): JobRun {
  const attempts = job.opts.attempts ?? 1;
  // Status updates go out one after another in call order, so a slow "running" update that nobody awaited
  // can never land after (and overwrite) "done" or "failed".
  let previous: Promise<unknown> = Promise.resolve();
  const inOrder = (send: () => Promise<void>): Promise<void> => {
    const next = previous.catch(() => {}).then(send);
    previous = next;
    return next;
  };
  const run: JobRun = {
    job,
    token,
    entry,
    deps,
    log,
    data: { ...job.data },
    isLastAttempt: job.attemptsMade + 1 >= attempts,
    status: (state, summary, options = {}) =>
      inOrder(async () => {
        const message = buildJobStatus({
          title: actionTitle(entry, run.data.fields),
          clientLabel: run.data.clientLabel,
          requestedBy: run.data.requestedBy,
          state,
          ...(summary ? { summary } : {}),
          ...(options.result ? { result: options.result } : {}),
          ...(run.data.retryOf ? { retryOf: run.data.retryOf } : {}),
          ...(run.data.viaAssistant ? { viaAssistant: true } : {}),
        });
        if (run.data.statusTs) {
          await deps.outbound.update(run.data.replyTo, run.data.statusTs, message);
          return;
        }
        const ts = await deps.outbound.post(run.data.replyTo, message);
        await checkpoint(run, { statusTs: ts });
      }),
    reply: async (message) => {
      if (!run.data.statusTs) await run.status('running');
      await deps.outbound.reply(run.data.replyTo, run.data.statusTs!, message);
    },
  };
  return run;
}
