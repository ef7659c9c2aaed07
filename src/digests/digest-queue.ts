import { type JobsOptions, Queue } from 'bullmq';
import type { Redis } from '../redis/connection.js';
import type { DigestKind } from './filters.js';
import { repeatOptions, type Schedule } from './schedule.js';

/**
 * The digests queue: one job per scheduled period (from a job scheduler per subscription, which
 * only the scheduler role upserts) and one per `digest now`. Apart from the action queue, whose limiter paces
 * gateway POSTs: a digest only reads. Job data names a channel and a kind, never a key or a token.
 */

export const DIGEST_QUEUE = 'digests';
export const DIGEST_JOB_NAME = 'digest';

export interface DigestJobData {
  channel: string;
  kind: DigestKind;
  trigger: 'schedule' | 'now';
  /** `now`: who asked (told alone when there is nothing new). */
  requestedBy?: string;
}

export interface DigestJobOutcome {
  outcome: 'posted' | 'baseline' | 'nothing' | 'duplicate' | 'skipped' | 'stopped';
}

const DAY_SEC = 86_400;

/** A few attempts a few seconds apart: the gateway client already retried each page. */
const DIGEST_JOB_OPTIONS: JobsOptions = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 5_000 },
  removeOnComplete: { age: DAY_SEC, count: 1_000 },
  removeOnFail: { age: 7 * DAY_SEC, count: 1_000 },
};

/** True when a job scheduler's repeat is the one a schedule asks for. */
export function sameRepeat(
  existing: { pattern?: string | null; every?: number | string | null; tz?: string | null },
  want: ReturnType<typeof repeatOptions>,
): boolean {
  if ('every' in want) return Number(existing.every) === want.every && !existing.pattern;
  return existing.pattern === want.pattern && (existing.tz ?? undefined) === want.tz;
}

/** The job scheduler of a subscription: one stable id per (channel, kind). */
export const digestSchedulerId = (channel: string, kind: DigestKind) => `digest-${channel}-${kind}`;

export class DigestQueue {
  readonly queue: Queue<DigestJobData, DigestJobOutcome>;
  readonly jobOptions: JobsOptions;

  constructor(options: { connection: Redis; prefix: string; jobOptions?: Partial<JobsOptions> }) {
    this.jobOptions = { ...DIGEST_JOB_OPTIONS, ...options.jobOptions };
    this.queue = new Queue<DigestJobData, DigestJobOutcome>(DIGEST_QUEUE, {
      connection: options.connection,
      prefix: options.prefix,
      defaultJobOptions: this.jobOptions,
    });
  }

  /** `digest now`: one job per request (the command's trigger id), so a redelivery is one digest. */
  static nowJobId(requestKey: string): string {
    return `now-${requestKey}`;
  }

  /** Whether a job is still waiting, delayed (a retry's backoff included) or running, has ended, or is unknown. */
  async stateOf(jobId: string): Promise<'alive' | 'ended' | 'unknown'> {
    const state = await this.queue.getJobState(jobId);
    if (state === 'unknown') return 'unknown';
    return state === 'completed' || state === 'failed' ? 'ended' : 'alive';
  }

  async enqueueNow(
    channel: string,
    kind: DigestKind,
    requestedBy: string,
    requestKey: string,
  ): Promise<void> {
    await this.queue.add(
      DIGEST_JOB_NAME,
      { channel, kind, trigger: 'now', requestedBy },
      { jobId: DigestQueue.nowJobId(requestKey) },
    );
  }

  /**
   * When the subscription's next scheduled run is, once the scheduler role has upserted it; given the schedule
   * now in force, undefined while the job scheduler still runs an older one (it is about to be replaced).
   */
  async nextRun(
    channel: string,
    kind: DigestKind,
    current?: { schedule: Schedule; tz: string },
  ): Promise<number | undefined> {
    const scheduler = await this.queue.getJobScheduler(digestSchedulerId(channel, kind));
    if (!scheduler) return undefined;
    if (current && !sameRepeat(scheduler, repeatOptions(current.schedule, current.tz))) return undefined;
    return scheduler.next;
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}
