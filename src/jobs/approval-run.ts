import type { WebClient } from '@slack/web-api';
import { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { ApprovalStore } from '../approvals/approval-store.js';
import type { ApprovalRecord } from '../approvals/record.js';
import type { AppLogger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { RedisOutageLog } from '../redis-outage.js';
import { buildApprovalCard } from '../views/approval-card.js';
import { failureCode } from './job-errors.js';
import type { ActionJobData, ActionJobOutcome } from './queue.js';
import { type Reporter, slackReplyTarget } from './reply-target.js';
import { createSlackPoster } from './slack-poster.js';
import { setUpWorker } from './worker-setup.js';

/**
 * The worker side of approvals: a request expires through a delayed job that updates its card,
 * not through a check made only when someone clicks; and the approved job's end (done, failed) is written to
 * the approval and shown on its card.
 */

const APPROVAL_QUEUE = 'approvals';
const EXPIRE_JOB = 'expire';
const DAY_SEC = 86_400;

interface ExpireJobData {
  id: string;
  channel: string;
}

/** Shows the record's state on its card (a no-op before the card was posted). */
async function showOnCard(poster: Reporter, record: ApprovalRecord): Promise<void> {
  if (!record.cardTs) return;
  await poster.update(slackReplyTarget(record.channel), record.cardTs, buildApprovalCard(record));
}

/** The web role's side: one delayed expiry job per request, its id the approval's, so a repeat adds none. */
export class ApprovalExpiry {
  readonly queue: Queue<ExpireJobData>;

  constructor(options: { connection: Redis; prefix: string }) {
    this.queue = new Queue<ExpireJobData>(APPROVAL_QUEUE, {
      connection: options.connection,
      prefix: options.prefix,
      defaultJobOptions: {
        attempts: 5,
        backoff: { type: 'exponential', delay: 2_000 },
        removeOnComplete: { age: DAY_SEC, count: 1_000 },
        removeOnFail: { age: 7 * DAY_SEC, count: 1_000 },
      },
    });
  }

  async schedule(record: Pick<ApprovalRecord, 'id' | 'channel' | 'expiresAt'>): Promise<void> {
    await this.queue.add(
      EXPIRE_JOB,
      { id: record.id, channel: record.channel },
      { jobId: `expire-${record.id}`, delay: Math.max(0, record.expiresAt - Date.now()) },
    );
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}

export interface ApprovalWorkers {
  close(): Promise<void>;
}

/** The worker role's expiry worker: pending → expired, and the card says so (retried while Slack fails). */
export function startApprovalWorker(options: {
  connection: string | (() => Redis);
  prefix: string;
  slack: WebClient;
  logger?: AppLogger;
  /** Shared with the process's other connections, so a Redis outage is one line per interval. */
  redisOutage?: RedisOutageLog;
  metrics?: Metrics;
}): ApprovalWorkers {
  const { logger, redis, blocking, redisOutage } = setUpWorker(options, 'approval-worker');
  const store = new ApprovalStore(redis, options.prefix, options.metrics ? { metrics: options.metrics } : {});
  const poster = createSlackPoster(options.slack);
  const worker = new Worker<ExpireJobData>(
    APPROVAL_QUEUE,
    async (job) => {
      const result = await store.transition(job.data.id, job.data.channel, 'expired', { actor: 'expiry' });
      // Expired by this job or by a click that came too late: either way the card must say so.
      if (result.record?.state === 'expired') await showOnCard(poster, result.record);
      return result.ok ? 'expired' : result.state;
    },
    { connection: blocking, prefix: options.prefix, concurrency: 5 },
  );
  worker.on('failed', (job, error) => logger.warn(`approval expiry ${job?.id} failed`, error.message));
  worker.on(
    'error',
    redisOutage.otherwise((error) => logger.error('approval worker error', error)),
  );
  return {
    close: async () => {
      await worker.close();
      await Promise.allSettled([redis.quit(), blocking.quit()]);
    },
  };
}

/**
 * An approved job ended: running → done | failed on its approval, shown on the card (a failure with Retry,
 * which only approvers may press). A job whose approval is not running for it changes nothing.
 */
export async function reportApprovalOutcome(
  deps: { redis: Redis; prefix: string; poster: Reporter; metrics?: Metrics },
  data: ActionJobData,
  ended: { outcome: ActionJobOutcome } | { error: unknown },
): Promise<void> {
  if (!data.approval) return;
  const store = new ApprovalStore(deps.redis, deps.prefix, deps.metrics ? { metrics: deps.metrics } : {});
  const done = 'outcome' in ended && ended.outcome.outcome === 'done';
  const note = done ? '' : 'outcome' in ended ? 'outcome_unknown' : failureCode(ended.error);
  const recordId = 'outcome' in ended ? ended.outcome.recordId : undefined;
  const result = await store.transition(data.approval.id, data.replyTo.channel, done ? 'done' : 'failed', {
    actor: 'worker',
    jobKey: data.jobKey,
    note,
    ...(recordId ? { recordId } : {}),
  });
  if (result.ok) await showOnCard(deps.poster, result.record);
}
