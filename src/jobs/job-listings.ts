import type { Job, Queue } from 'bullmq';
import type { Redis } from '../redis/connection.js';
import type { ActionJobData, ActionJobOutcome } from './job-data.js';
import { type JobState, toJobState } from './job-state.js';

/**
 * The listings of action jobs: each channel's and each requester's index of job keys (newest first), read
 * against the queue, and the records of jobs cancelled before they started (gone from the queue).
 */

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

/** A page of a listing: the jobs shown, and how many the index holds in all. */
export interface JobListing {
  jobs: JobSummary[];
  total: number;
}

/** Each requester's index keeps their newest this many jobs, across channels. */
const REQUESTER_JOBS_KEPT = 100;

/** How long an index and a cancelled job's record are kept. */
export const LISTING_TTL_SEC = 7 * 86_400;

export function channelIndexKey(prefix: string, channel: string): string {
  return `${prefix}:jobs:channel:${channel}`;
}

export function requesterIndexKey(prefix: string, user: string): string {
  return `${prefix}:jobs:requester:${user}`;
}

function cancelledKey(prefix: string, jobKey: string): string {
  return `${prefix}:jobs:cancelled:${jobKey}`;
}

/** Adds a job to its requester's index (their recent jobs across channels), bounded. */
export async function addToRequesterIndex(redis: Redis, prefix: string, data: ActionJobData): Promise<void> {
  const key = requesterIndexKey(prefix, data.requestedBy);
  await redis
    .pipeline()
    .zadd(key, data.enqueuedAt, data.jobKey)
    .zremrangebyrank(key, 0, -(REQUESTER_JOBS_KEPT + 1))
    .expire(key, LISTING_TTL_SEC)
    .exec();
}

/** Keeps the record of a job cancelled before it started, for the listings that still name it. */
export async function keepCancelled(redis: Redis, prefix: string, summary: JobSummary): Promise<void> {
  await redis.set(cancelledKey(prefix, summary.jobKey), JSON.stringify(summary), 'EX', LISTING_TTL_SEC);
}

/** A job cancelled before it started: what it was and who cancelled it. */
export async function readCancelledJob(
  redis: Redis,
  prefix: string,
  jobKey: string,
): Promise<JobSummary | undefined> {
  const kept = await redis.get(cancelledKey(prefix, jobKey));
  return kept ? (JSON.parse(kept) as JobSummary) : undefined;
}

/** A job's data as a listing line in the given state. */
export function summaryOf(data: ActionJobData, state: JobState): JobSummary {
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
 * The newest `limit` jobs of an index, newest first. A key whose job BullMQ no longer holds (and that was not
 * cancelled) is left out and not counted in the total.
 */
export async function listJobs(
  redis: Redis,
  prefix: string,
  queue: Queue<ActionJobData, ActionJobOutcome>,
  index: string,
  limit: number,
): Promise<JobListing> {
  const [keys, total] = await Promise.all([redis.zrevrange(index, 0, limit * 2 - 1), redis.zcard(index)]);
  const out: JobSummary[] = [];
  let missing = 0;
  for (const key of keys) {
    if (out.length >= limit) break;
    const job = await queue.getJob(key);
    const summary = job ? await summaryOfJob(job) : await readCancelledJob(redis, prefix, key);
    if (summary) out.push(summary);
    else missing++;
  }
  return { jobs: out, total: Math.max(out.length, total - missing) };
}

/** A queued, running or finished job as a listing line (undefined: BullMQ no longer knows its state). */
async function summaryOfJob(job: Job<ActionJobData, ActionJobOutcome>): Promise<JobSummary | undefined> {
  const state = toJobState(await job.getState(), job.returnvalue, job.data.step);
  if (!state) return undefined;
  const summary = summaryOf(job.data, state);
  if (job.finishedOn) summary.finishedAt = job.finishedOn;
  const recordId = job.returnvalue?.recordId ?? job.data.recordId;
  if (recordId) summary.recordId = recordId;
  if (state === 'failed' && job.failedReason) summary.failedReason = job.failedReason;
  return summary;
}
