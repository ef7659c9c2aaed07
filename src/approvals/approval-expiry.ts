import { Queue, Worker } from 'bullmq';
import { setUpWorker } from '../jobs/index.js';
import type { AppLogger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { Redis, RedisTarget } from '../redis/connection.js';
import type { RedisOutageLog } from '../redis/outage.js';
import type { ThreadOutbound } from '../slack/reply-target.js';
import { showOnCard } from './approval-outcome.js';
import type { ApprovalStore } from './approval-store.js';
import type { ApprovalRecord } from './record.js';

/**
 * Expiry: a request expires through a delayed job that updates its card, not through a check made only when
 * someone clicks.
 */

const APPROVAL_QUEUE = 'approvals';
const EXPIRE_JOB = 'expire';
const DAY_SEC = 86_400;

interface ExpireJobData {
  id: string;
  channel: string;
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
  connection: string | RedisTarget | (() => Redis);
  prefix: string;
  store: ApprovalStore;
  outbound: ThreadOutbound;
  logger?: AppLogger;
  metrics?: Metrics;
  /** Shared with the process's other connections, so a Redis outage is one line per interval. */
  redisOutage?: RedisOutageLog;
}): ApprovalWorkers {
  const { logger, blocking, onError, close } = setUpWorker(options, 'approval-worker');
  const { store, outbound } = options;
  const worker = new Worker<ExpireJobData>(
    APPROVAL_QUEUE,
    async (job) => {
      const result = await store.transition(job.data.id, job.data.channel, 'expired', { actor: 'expiry' });
      // Expired by this job or by a click that came too late: either way the card must say so.
      if (result.record?.state === 'expired') await showOnCard(outbound, result.record);
      return result.ok ? 'expired' : result.state;
    },
    { connection: blocking, prefix: options.prefix, concurrency: 5 },
  );
  worker.on('failed', (job, error) => logger.warn(`approval expiry ${job?.id} failed`, error.message));
  worker.on('error', onError(APPROVAL_QUEUE, 'approval worker error', options.metrics));
  return {
    close: () => close(worker),
  };
}
