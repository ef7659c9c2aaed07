import { Worker } from 'bullmq';
import { BindingStore } from '../bindings/index.js';
import type { GatewayClient } from '../gateway/index.js';
import { isGatewayError, publicErrorCode } from '../gateway/index.js';
import { dispatch, ranFor, setUpWorker } from '../jobs/index.js';
import type { AppLogger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { Redis, RedisTarget } from '../redis/connection.js';
import type { RedisOutageLog } from '../redis/outage.js';
import type { SlackOutbound } from '../slack/slack-poster.js';
import { type DigestJobDeps, processDigestJob, reportDigestFailure } from './digest-job.js';
import { DIGEST_JOB_NAME, DIGEST_QUEUE, type DigestJobData, type DigestJobOutcome } from './digest-queue.js';
import { DigestStore } from './store.js';

/** The worker role's digest workers: any number of processes, each period posted once (see digest-job.ts). */

export interface DigestWorkerOptions {
  connection: string | RedisTarget | (() => Redis);
  prefix: string;
  gateway: GatewayClient;
  outbound: SlackOutbound;
  tz: string;
  logger?: AppLogger;
  /** Shared with the process's other connections, so a Redis outage is one line per interval. */
  redisOutage?: RedisOutageLog;
  metrics?: Metrics;
  /** Digests page whole resources: a couple at a time per process is plenty. */
  concurrency?: number;
  leaseMs?: number;
  /** DIGEST_SPREAD (spread.ts). */
  spreadMs?: number;
}

export interface DigestWorkers {
  worker: Worker<DigestJobData, DigestJobOutcome>;
  close(): Promise<void>;
}

export function startDigestWorkers(options: DigestWorkerOptions): DigestWorkers {
  const { logger, redis, blocking, onError, track, close } = setUpWorker(options, 'digest-worker');
  const deps: DigestJobDeps = {
    redis,
    gateway: options.gateway,
    outbound: options.outbound,
    store: new DigestStore(redis, options.prefix),
    bindings: new BindingStore(redis, options.prefix),
    tz: options.tz,
    logger,
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.leaseMs ? { leaseMs: options.leaseMs } : {}),
    ...(options.spreadMs ? { spreadMs: options.spreadMs } : {}),
  };
  const process = dispatch({ [DIGEST_JOB_NAME]: (job, token) => processDigestJob(job, token, deps) });
  const worker = new Worker<DigestJobData, DigestJobOutcome>(
    DIGEST_QUEUE,
    async (job, token) => (await process(job, token)) as DigestJobOutcome,
    {
      connection: blocking,
      prefix: options.prefix,
      concurrency: options.concurrency ?? 2,
      lockDuration: 60_000,
      maxStalledCount: 2,
    },
  );
  worker.on('completed', (job, result) => {
    options.metrics?.jobEnded(DIGEST_QUEUE, result?.outcome ?? 'done', ranFor(job));
  });
  worker.on('failed', (job, error) => {
    const log = logger.child({ job: job?.id });
    log.warn(`digest job failed: ${publicErrorCode(error)}`);
    if (!job?.finishedOn) {
      options.metrics?.retry('job', isGatewayError(error) ? error.code : 'digest_error');
      return;
    }
    options.metrics?.jobEnded(DIGEST_QUEUE, 'failed', ranFor(job));
    track(
      reportDigestFailure(job, publicErrorCode(error), deps).catch((e: unknown) =>
        log.warn('could not tell the channel about a failed digest', e),
      ),
    );
  });
  worker.on('error', onError(DIGEST_QUEUE, 'digest worker error', options.metrics));
  return {
    worker,
    close: () => close(worker),
  };
}
