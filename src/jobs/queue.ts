import { randomUUID } from 'node:crypto';
import { type JobsOptions, Queue } from 'bullmq';
import type { Rate } from '../config.js';
import type { AppLogger } from '../logger.js';
import { silentLogger } from '../logger.js';
import type { Redis } from '../redis/connection.js';
import { ReplicaWait } from '../redis/replica.js';
import type { ReplyTarget } from '../slack/reply-target.js';
import { dedupeKey, releaseJobClaim } from '../store/index.js';
import type { JobWait } from '../views/job-status.js';
import { bullKeys } from './bullmq-internals.js';
import { admitJob, fairKeys } from './rate-limit.js';
import { estimateWait } from './wait.js';

/**
 * jobs/ owns the queue mechanics every queue shares (lease, rate limit, reconciliation, fault streak, waits,
 * BullMQ internals) and the action queue and worker; features plug their own queues in from their folders.
 *
 * The action queue. The web role enqueues, workers run. A job's id is its dedupe key, so a
 * redelivered command or a double click is one job; job data never holds a key or a token.
 */

export const ACTION_QUEUE = 'actions';
export const ACTION_JOB_NAME = 'action';

export type JobStep = 'queued' | 'posting' | 'done';

/** The approval a guarded action's job carries. */
export interface JobApproval {
  id: string;
  state: ApprovalState;
}

export interface ActionJobData {
  jobKey: string;
  action: string;
  clientId: string;
  clientLabel: string;
  fields: Record<string, unknown>;
  /** Where the job reports (reply-target.ts): a Slack channel, or any other kind of target. */
  replyTo: ReplyTarget;
  requestedBy: string;
  /** The status message the reply target shows (Slack: its ts); results go under it. */
  statusTs?: string;
  confirmedDuplicate?: boolean;
  retryOf?: string;
  /** A guarded action's approval; the worker refuses a guarded job without an approved one (approval-gate.ts). */
  approval?: JobApproval;
  enqueuedAt: number;
  /** Set by enqueue, so it can tell its own job from an older one with the same id. */
  enqueueId?: string;
  /** The fingerprint this job holds in flight (store/in-flight.ts); the worker gives it back when the job ends. */
  holdsFingerprint?: string;
  step?: JobStep;
  startedAt?: number;
  fingerprint?: string;
  /**
   * Step "posting" only: from when a reconciliation that finds nothing may be believed. Until then the POST
   * may still be in flight or still being worked on by the gateway. Unset: the POST's own timeout from
   * `startedAt`, as for a run that died mid-POST.
   */
  trustAbsentAfter?: number;
  /** Set once the action succeeded, so a re-run only finishes the Slack side. */
  recordId?: string;
  result?: Record<string, unknown>;
  /** Asked for through an assistant tool: its messages say so. */
  viaAssistant?: boolean;
}

import type { ApprovalState } from '../metrics.js';
import type { JobState } from './job-state.js';

export type { JobState };

/** What a processed job returns (BullMQ `returnvalue`). */
export interface ActionJobOutcome {
  outcome: 'done' | 'needs-attention';
  recordId?: string;
  reconciled?: boolean;
}

export interface JobSummary {
  jobKey: string;
  /** The channel it reports to. */
  channel: string;
  action: string;
  /** What the job was asked to do with (the URL, the keyword, the topic): the list names it. */
  fields: Record<string, unknown>;
  clientId: string;
  clientLabel: string;
  requestedBy: string;
  state: JobState;
  enqueuedAt: number;
  finishedAt?: number;
  recordId?: string;
  failedReason?: string;
  statusTs?: string;
  /** Cancelled: by whom. */
  cancelledBy?: string;
}

/** What `cancel` did: removed it, or why not. */
export type CancelOutcome =
  | { kind: 'cancelled'; data: ActionJobData }
  | { kind: 'started' }
  | { kind: 'gone' };

export interface ActionQueueOptions {
  connection: Redis;
  prefix: string;
  logger?: AppLogger;
  /** Overrides of the default job options (tests shorten the backoff). */
  jobOptions?: Partial<JobsOptions>;
  /** How long a job key stays claimed; default 24 h. */
  dedupeTtlSec?: number;
  /** The action rate (GATEWAY_ACTION_RATE), for the waits queued messages show. */
  rate?: Rate;
  /** How long an added job waits for a replica to hold it before the person is told (0: not at all). */
  replicaWaitMs?: number;
  /** Told when a job is queued or cancelled here (`ended`: cancelled); Home tabs follow. */
  changed?: (data: ActionJobData, change: { ended: boolean }) => Promise<void>;
}

/** Each requester's index keeps their newest this many jobs, across channels. */
const REQUESTER_JOBS_KEPT = 100;

const DAY_SEC = 86_400;

/**
 * A job whose POST met a 5xx or a timeout reconciles, then tries again after its own backoff
 * (docs/gateway-api.md §7: 2^attempt × 250 ms with full jitter, five attempts), while every other job runs on
 * (fault-streak.ts).
 */
const DEFAULT_JOB_OPTIONS: JobsOptions = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 500, jitter: 1 },
  removeOnComplete: { age: 7 * DAY_SEC, count: 1_000 },
  removeOnFail: { age: 14 * DAY_SEC, count: 5_000 },
};

export class ActionQueue {
  readonly queue: Queue<ActionJobData, ActionJobOutcome>;
  readonly prefix: string;
  readonly #redis: Redis;
  readonly #logger: AppLogger;
  readonly #dedupeTtlSec: number;
  readonly #rate: Rate | undefined;
  readonly #replicaWait: ReplicaWait;
  readonly #changed: ActionQueueOptions['changed'];

  constructor(options: ActionQueueOptions) {
    this.prefix = options.prefix;
    this.#redis = options.connection;
    this.#logger = options.logger ?? silentLogger();
    this.#dedupeTtlSec = options.dedupeTtlSec ?? DAY_SEC;
    this.#rate = options.rate;
    this.#replicaWait = new ReplicaWait(options.replicaWaitMs ?? 0, this.#logger);
    this.#changed = options.changed;
    this.queue = new Queue<ActionJobData, ActionJobOutcome>(ACTION_QUEUE, {
      connection: options.connection,
      prefix: options.prefix,
      defaultJobOptions: { ...DEFAULT_JOB_OPTIONS, ...options.jobOptions },
    });
  }

  /**
   * Queues one action job. A second call with the same jobKey while its claim lasts (Slack redelivering, a
   * double click) adds nothing and says `repeat`; a call whose jobKey an older, finished job still uses adds
   * nothing and says `keyInUse`. (A "duplicate" is something else: an earlier record of the same request.)
   *
   * `announce` runs once the job is admitted (its place in the queue known) and before any worker can see it:
   * it posts the status message and returns where (`statusTs`). Anything shown later by the web process
   * could land after the worker's own updates (another process may finish the job first) and undo them.
   */
  async enqueue(
    data: ActionJobData,
    announce?: (ahead: number) => Promise<string | undefined>,
  ): Promise<{ jobId: string; ahead: number; repeat: boolean; keyInUse: boolean }> {
    const fair = fairKeys(this.prefix, ACTION_QUEUE, data.clientId);
    const bull = bullKeys(this.prefix, ACTION_QUEUE);
    const admission = await admitJob(
      this.#redis,
      {
        dedupe: dedupeKey(this.prefix, `job:${data.jobKey}`),
        fairNow: fair.now,
        fairLast: fair.last,
        prioritized: bull.prioritized,
        wait: bull.wait,
        channelIndex: channelIndexKey(this.prefix, data.replyTo.channel),
      },
      {
        jobKey: data.jobKey,
        enqueuedAt: data.enqueuedAt,
        dedupeTtlSec: this.#dedupeTtlSec,
        indexTtlSec: 7 * DAY_SEC,
      },
    );
    if (!admission.claimed) return { jobId: data.jobKey, ahead: 0, repeat: true, keyInUse: false };
    const release = () =>
      this.#redis
        .del(dedupeKey(this.prefix, `job:${data.jobKey}`))
        .catch((e: unknown) => this.#logger.warn('could not release a job claim', e));
    const clean: ActionJobData = { ...data, step: 'queued', enqueueId: randomUUID() };
    try {
      const statusTs = await announce?.(admission.ahead);
      if (statusTs) clean.statusTs = statusTs;
      await this.queue.add(ACTION_JOB_NAME, clean, { jobId: data.jobKey, priority: admission.priority });
    } catch (error) {
      // Nothing was queued (Slack or Redis refused): keep the claim and every later request with this key
      // would be a silent duplicate.
      await release();
      throw error;
    }
    // BullMQ keeps finished jobs for days, longer than the claim lasts: once the claim has expired, add()
    // with a used id adds nothing and still answers with a job carrying our data. Only the stored job tells.
    const stored = await this.queue.getJob(data.jobKey);
    if (stored && stored.data.enqueueId !== clean.enqueueId) {
      await release();
      this.#logger.info(`job id ${data.jobKey} is taken by an earlier job; nothing was queued`);
      return { jobId: data.jobKey, ahead: 0, repeat: false, keyInUse: true };
    }
    // A job lost in a failover after "queued" was said would be a job lost; the job is queued here either way.
    await this.#replicaWait
      .after(this.#redis, bull.wait)
      .catch((e: unknown) => this.#logger.warn('could not wait for a replica to hold a queued job', e));
    this.#logger.debug(`queued ${data.action} for ${data.clientId} as ${data.jobKey}`);
    await this.#indexRequester(clean);
    return { jobId: data.jobKey, ahead: admission.ahead, repeat: false, keyInUse: false };
  }

  /** A job by its key (the value of every job button), its data read as this version writes it. */
  async findJob(jobKey: string) {
    const job = await this.queue.getJob(jobKey);
    return job ?? undefined;
  }

  /** A job cancelled before it started (it is gone from the queue): what it was and who cancelled it. */
  async cancelledJob(jobKey: string): Promise<JobSummary | undefined> {
    const kept = await this.#redis.get(cancelledKey(this.prefix, jobKey));
    return kept ? (JSON.parse(kept) as JobSummary) : undefined;
  }

  /** Why a job with `ahead` jobs before it waits, and about how long. */
  estimateWait(ahead: number): Promise<JobWait> {
    return estimateWait(this.#redis, this.prefix, ACTION_QUEUE, this.#rate, ahead);
  }

  /**
   * Cancels a job that has not started: it is removed (BullMQ refuses while a worker holds it), its in-flight
   * claim is given back, and a record stays for `jobs`. A job that ever started (processedOn) is left alone:
   * its POST may have left.
   */
  async cancel(jobKey: string, by: string): Promise<CancelOutcome> {
    const job = await this.findJob(jobKey);
    if (!job) return { kind: 'gone' };
    if (job.processedOn || (job.data.step && job.data.step !== 'queued')) return { kind: 'started' };
    try {
      await job.remove();
    } catch {
      // Locked: a worker took it between the read and the removal.
      return { kind: 'started' };
    }
    const summary: JobSummary = {
      ...this.#summaryOf(job.data, 'cancelled'),
      finishedAt: Date.now(),
      cancelledBy: by,
    };
    await this.#redis.set(cancelledKey(this.prefix, jobKey), JSON.stringify(summary), 'EX', 7 * DAY_SEC);
    await releaseJobClaim(this.#redis, this.prefix, job.data).catch((e: unknown) =>
      this.#logger.warn('could not release an in-flight claim', e),
    );
    await this.#tell(job.data, true);
    return { kind: 'cancelled', data: job.data };
  }

  /** The requester's own index (their recent jobs across channels), bounded; then the listener is told. */
  async #indexRequester(data: ActionJobData): Promise<void> {
    const key = requesterIndexKey(this.prefix, data.requestedBy);
    await this.#redis
      .pipeline()
      .zadd(key, data.enqueuedAt, data.jobKey)
      .zremrangebyrank(key, 0, -(REQUESTER_JOBS_KEPT + 1))
      .expire(key, 7 * DAY_SEC)
      .exec()
      .catch((e: unknown) => this.#logger.warn('could not index a job under its requester', e));
    await this.#tell(data, false);
  }

  async #tell(data: ActionJobData, ended: boolean): Promise<void> {
    await this.#changed?.(data, { ended }).catch((e: unknown) =>
      this.#logger.warn('could not report a job change', e),
    );
  }

  #summaryOf(data: ActionJobData, state: JobState): JobSummary {
    const summary: JobSummary = {
      jobKey: data.jobKey,
      channel: data.replyTo.channel,
      action: data.action,
      fields: data.fields ?? {},
      clientId: data.clientId,
      clientLabel: data.clientLabel,
      requestedBy: data.requestedBy,
      state,
      enqueuedAt: data.enqueuedAt,
    };
    if (data.statusTs) summary.statusTs = data.statusTs;
    return summary;
  }

  /**
   * A channel's queued, running and recent jobs, newest first (for the `jobs` command), and how many the
   * channel has in all (the index keeps the newest 100).
   */
  channelJobs(channel: string, limit = 10): Promise<{ jobs: JobSummary[]; total: number }> {
    return this.#jobsIn(channelIndexKey(this.prefix, channel), limit);
  }

  /** A person's queued, running and recent jobs across channels, newest first (the index keeps 100). */
  requesterJobs(user: string, limit = 10): Promise<{ jobs: JobSummary[]; total: number }> {
    return this.#jobsIn(requesterIndexKey(this.prefix, user), limit);
  }

  async #jobsIn(index: string, limit: number): Promise<{ jobs: JobSummary[]; total: number }> {
    const [keys, total] = await Promise.all([
      this.#redis.zrevrange(index, 0, limit * 2 - 1),
      this.#redis.zcard(index),
    ]);
    const out: JobSummary[] = [];
    let missing = 0;
    for (const key of keys) {
      if (out.length >= limit) break;
      const job = await this.queue.getJob(key);
      if (!job) {
        const cancelled = await this.#redis.get(cancelledKey(this.prefix, key));
        if (cancelled) out.push(JSON.parse(cancelled) as JobSummary);
        else missing++;
        continue;
      }
      const state = toJobState(await job.getState(), job.returnvalue, job.data.step);
      if (!state) {
        missing++;
        continue;
      }
      const summary = this.#summaryOf(job.data, state);
      if (job.finishedOn) summary.finishedAt = job.finishedOn;
      const recordId = job.returnvalue?.recordId ?? job.data.recordId;
      if (recordId) summary.recordId = recordId;
      if (state === 'failed' && job.failedReason) summary.failedReason = job.failedReason;
      out.push(summary);
    }
    return { jobs: out, total: Math.max(out.length, total - missing) };
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}

function channelIndexKey(prefix: string, channel: string): string {
  return `${prefix}:jobs:channel:${channel}`;
}

function requesterIndexKey(prefix: string, user: string): string {
  return `${prefix}:jobs:requester:${user}`;
}

function cancelledKey(prefix: string, jobKey: string): string {
  return `${prefix}:jobs:cancelled:${jobKey}`;
}

export function toJobState(
  bullState: string,
  returnvalue: ActionJobOutcome | undefined,
  step?: JobStep,
): JobState | undefined {
  switch (bullState) {
    case 'completed':
      return returnvalue?.outcome === 'needs-attention' ? 'needs-attention' : 'done';
    case 'failed':
      // A job that failed after its POST left may have run: a person has to look, as its thread says.
      return step === 'posting' ? 'needs-attention' : 'failed';
    case 'active':
      return 'running';
    case 'waiting':
    case 'prioritized':
    case 'delayed':
    case 'waiting-children':
      return 'queued';
    default:
      return undefined;
  }
}
