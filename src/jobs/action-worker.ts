import type { WebClient } from '@slack/web-api';
import { MetricsTime, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Catalogue } from '../actions/catalogue.js';
import type { Rate } from '../config.js';
import type { GatewayClient } from '../gateway/client.js';
import type { AppLogger } from '../logger.js';
import { silentLogger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import { createRedis } from '../redis.js';
import { releaseJobClaim } from '../store/in-flight.js';
import { ActionLedger } from '../store/ledger.js';
import { bullKeys } from './bullmq-internals.js';
import { reportFinalFailure } from './final-failure.js';
import { RetryableJobError, wasReported } from './job-errors.js';
import type { ActionJobDeps } from './job-run.js';
import { actionProcessors, dispatch } from './processors.js';
import { ACTION_QUEUE, type ActionJobData, type ActionJobOutcome, upgradeJobData } from './queue.js';
import { advanceFairClock, backoffMs, fairKeys, pauseAllWorkers } from './rate-limit.js';
import { createSlackPoster } from './slack-poster.js';

/**
 * The worker role's action workers. The global POST rate (GATEWAY_ACTION_RATE) is BullMQ's limiter, shared
 * through Redis by every worker process; a gateway fault or a slow answer backs them all off at once
 * (the limiter key held "full" for the pause, as worker.rateLimit does, see pauseAllWorkers).
 */

export interface ActionWorkerOptions {
  /** A Redis URL, or a factory of new connections (the worker needs its own blocking one). */
  connection: string | (() => Redis);
  prefix: string;
  gateway: GatewayClient;
  slack: WebClient;
  catalogue: () => Catalogue | Promise<Catalogue>;
  rate: Rate;
  actionTimeoutMs: number;
  concurrency?: number;
  logger?: AppLogger;
  /** Job durations, job retries and reconciliations are counted here when given. */
  metrics?: Metrics;
  /** Lease around reconcile-and-POST; renewed while it runs. Default 15 s. */
  leaseMs?: number;
  /** Wait before reconciling after an unknown outcome, so the gateway's write lands. Default 2 s. */
  reconcileGraceMs?: number;
  /** First backoff for everyone after a gateway fault; doubles while faults continue. Default 5 s. */
  backoffMs?: number;
  /** An answer slower than this backs everyone off. Default: half the action timeout. */
  slowMs?: number;
  /**
   * Added to the limiter's window: a job's POST reaches the gateway a few ms after the job starts, and that
   * lag varies, so windows measured at the gateway would otherwise now and then see max + 1. Default 2 % of
   * the window, at least 10 ms.
   */
  rateGuardMs?: number;
  /** A job is stalled when its worker has not renewed its lock for this long. Default 30 s. */
  lockDurationMs?: number;
  stalledIntervalMs?: number;
}

export interface ActionWorkers {
  worker: Worker<ActionJobData, ActionJobOutcome>;
  close(): Promise<void>;
}

export function startActionWorkers(options: ActionWorkerOptions): ActionWorkers {
  const logger = (options.logger ?? silentLogger()).child({ role: 'action-worker' });
  const connect = (blocking: boolean) =>
    typeof options.connection === 'string'
      ? createRedis(options.connection, { blocking })
      : options.connection();
  const redis = connect(false);
  const blocking = connect(true);
  // Redis going away is logged, not left to ioredis's "Unhandled error event" on stderr; both reconnect.
  for (const connection of [redis, blocking])
    connection.on('error', (error: Error) => logger.warn('redis connection error', error.message));
  const base = options.backoffMs ?? 5_000;
  let consecutiveFaults = 0;
  let lastFaultAt = 0;

  const deps: ActionJobDeps = {
    redis,
    prefix: options.prefix,
    gateway: options.gateway,
    poster: createSlackPoster(options.slack),
    ledger: new ActionLedger(redis, options.prefix),
    catalogue: options.catalogue,
    actionTimeoutMs: options.actionTimeoutMs,
    leaseMs: options.leaseMs ?? 15_000,
    reconcileGraceMs: options.reconcileGraceMs ?? 2_000,
    slowMs: options.slowMs ?? Math.max(1, Math.floor(options.actionTimeoutMs / 2)),
    backOff: async (reason) => {
      // Faults close together double the pause; a quiet spell resets it.
      const now = Date.now();
      consecutiveFaults = now - lastFaultAt < base * 4 ? consecutiveFaults + 1 : 1;
      lastFaultAt = now;
      const ms = backoffMs(base, consecutiveFaults);
      const paused = await pauseAllWorkers(redis, bullKeys(options.prefix, ACTION_QUEUE).limiter, ms);
      logger.warn(`backing every worker off for ${paused} ms: ${reason}`);
    },
    logger,
    metrics: options.metrics,
  };
  const process = dispatch(actionProcessors(deps));
  const nowKey = fairKeys(options.prefix, ACTION_QUEUE, '').now;

  const worker = new Worker<ActionJobData, ActionJobOutcome>(
    ACTION_QUEUE,
    async (job, token) => {
      // The fairness clock follows the jobs that start (see rate-limit.ts); it never blocks the POST.
      const clock = advanceFairClock(redis, nowKey, job.opts.priority ?? 0).catch(() => {});
      job.data = upgradeJobData(job.data);
      try {
        return (await process(job, token)) as ActionJobOutcome;
      } finally {
        await clock;
      }
    },
    {
      connection: blocking,
      prefix: options.prefix,
      concurrency: options.concurrency ?? 5,
      limiter: {
        max: options.rate.max,
        duration:
          options.rate.windowMs +
          (options.rateGuardMs ?? Math.max(10, Math.round(options.rate.windowMs * 0.02))),
      },
      lockDuration: options.lockDurationMs ?? 30_000,
      ...(options.stalledIntervalMs ? { stalledInterval: options.stalledIntervalMs } : {}),
      maxStalledCount: 2,
      // Minute counts of completed and failed jobs, which BullMQ's own Prometheus export reads.
      metrics: { maxDataPoints: MetricsTime.ONE_WEEK },
    },
  );
  const reports = new Set<Promise<void>>();
  // A job that has ended gives back the fingerprint it held in flight, so an identical request may run again
  // (after a success the ledger makes it ask first). A lost release only lasts until the claim expires.
  const release = (data: ActionJobData) =>
    releaseJobClaim(redis, options.prefix, data).catch((e: unknown) =>
      logger.warn('could not release an in-flight claim', e),
    );
  const ranFor = (job: { processedOn?: number; finishedOn?: number }) =>
    Math.max(0, (job.finishedOn ?? Date.now()) - (job.processedOn ?? Date.now())) / 1_000;
  worker.on('completed', (job, result) => {
    void release(job.data);
    options.metrics?.jobEnded(ACTION_QUEUE, result?.outcome ?? 'done', ranFor(job));
  });
  worker.on('failed', (job, error) => {
    if (job) job.data = upgradeJobData(job.data);
    const log = logger.child({ job: job?.id });
    log.warn(`job failed: ${error.message}`);
    if (job?.finishedOn) {
      void release(job.data);
      options.metrics?.jobEnded(ACTION_QUEUE, 'failed', ranFor(job));
    } else options.metrics?.retry('job', error instanceof RetryableJobError ? error.code : 'error');
    // finishedOn is set only when BullMQ will not try again; a reported error has been told already.
    if (!job?.finishedOn || wasReported(error)) return;
    const report = reportFinalFailure(job, error, deps)
      .catch((e: unknown) => log.warn('could not report the failed job in its thread', e))
      .finally(() => reports.delete(report));
    reports.add(report);
  });
  worker.on('error', (error) => logger.error('worker error', error));

  return {
    worker,
    close: async () => {
      await worker.close();
      await Promise.allSettled([...reports]);
      await Promise.allSettled([redis.quit(), blocking.quit()]);
    },
  };
}
