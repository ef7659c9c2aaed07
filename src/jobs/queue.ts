import { randomUUID } from 'node:crypto';
import { type JobsOptions, Queue } from 'bullmq';
import type { Rate } from '../config.js';
import type { AppLogger } from '../logger.js';
import { silentLogger } from '../logger.js';
import type { Redis } from '../redis/connection.js';
import { ReplicaWait } from '../redis/replica.js';
import { dedupeKey, releaseJobClaim } from '../store/index.js';
import type { JobWait } from '../views/job-status.js';
import { ACTION_JOB_NAME, ACTION_QUEUE, type ActionJobData, type ActionJobOutcome } from './job-data.js';
import {
  addToRequesterIndex,
  channelIndexKey,
  type JobListing,
  type JobSummary,
  keepCancelled,
  LISTING_TTL_SEC,
  listJobs,
  readCancelledJob,
  requesterIndexKey,
  summaryOf,
} from './job-listings.js';
import { admitJob, bullKeys, estimateWait, fairKeys } from './rate-limit.js';

/**
 * jobs/ owns the queue mechanics every queue shares (lease, rate limit, reconciliation, fault streak, waits,
 * BullMQ internals) and the action queue and worker; features plug their own queues in from their folders.
 *
 * The action queue. The web role enqueues, workers run; what a job carries is in job-data.ts, the listings
 * that name jobs in job-listings.ts.
 */

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

const DAY_SEC = 86_400;

/**
 * A job whose POST met a 5xx or a timeout reconciles, then tries again after its own backoff
 * (docs/gateway-api.md §7: 2^attempt × 250 ms with full jitter, five attempts), while every other job runs on
 * (the fault streak, rate-limit.ts).
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
        indexTtlSec: LISTING_TTL_SEC,
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

  /** A job by its key (the value of every job button). */
  findJob(jobKey: string) {
    return this.queue.getJob(jobKey);
  }

  /** A job cancelled before it started (it is gone from the queue): what it was and who cancelled it. */
  cancelledJob(jobKey: string): Promise<JobSummary | undefined> {
    return readCancelledJob(this.#redis, this.prefix, jobKey);
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
    await keepCancelled(this.#redis, this.prefix, {
      ...summaryOf(job.data, 'cancelled'),
      finishedAt: Date.now(),
      cancelledBy: by,
    });
    await releaseJobClaim(this.#redis, this.prefix, job.data).catch((e: unknown) =>
      this.#logger.warn('could not release an in-flight claim', e),
    );
    await this.#tell(job.data, true);
    return { kind: 'cancelled', data: job.data };
  }

  /** The requester's own index (their recent jobs across channels); then the listener is told. */
  async #indexRequester(data: ActionJobData): Promise<void> {
    await addToRequesterIndex(this.#redis, this.prefix, data).catch((e: unknown) =>
      this.#logger.warn('could not index a job under its requester', e),
    );
    await this.#tell(data, false);
  }

  async #tell(data: ActionJobData, ended: boolean): Promise<void> {
    await this.#changed?.(data, { ended }).catch((e: unknown) =>
      this.#logger.warn('could not report a job change', e),
    );
  }

  /**
   * A channel's queued, running and recent jobs, newest first (for the `jobs` command), and how many the
   * channel has in all (the index keeps the newest 100).
   */
  channelJobs(channel: string, limit = 10): Promise<JobListing> {
    return listJobs(this.#redis, this.prefix, this.queue, channelIndexKey(this.prefix, channel), limit);
  }

  /** A person's queued, running and recent jobs across channels, newest first (the index keeps 100). */
  requesterJobs(user: string, limit = 10): Promise<JobListing> {
    return listJobs(this.#redis, this.prefix, this.queue, requesterIndexKey(this.prefix, user), limit);
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}
