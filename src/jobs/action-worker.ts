import { type Job, MetricsTime, Worker } from 'bullmq';
import type { Catalogue } from '../actions/index.js';
import type { Rate } from '../config.js';
import type { GatewayClient } from '../gateway/index.js';
import type { AppLogger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { Redis, RedisTarget } from '../redis/connection.js';
import type { RedisOutageLog } from '../redis/outage.js';
import { ReplicaWait } from '../redis/replica.js';
import type { SlackOutbound } from '../slack/slack-poster.js';
import { ActionLedger, releaseJobClaim } from '../store/index.js';
import { processActionJob } from './action-job.js';
import { reportFinalFailure } from './final-failure.js';
import { ACTION_JOB_NAME, ACTION_QUEUE, type ActionJobData, type ActionJobOutcome } from './job-data.js';
import { RetryableJobError, wasReported } from './job-errors.js';
import type { ActionJobDeps, ApprovalHooks, JobEnd, RequestFinished } from './job-run.js';
import { ActionQueue } from './queue.js';
import { advanceFairClock, bullKeys, fairKeys, faultStreak, pauseAllWorkers } from './rate-limit.js';
import { showWait } from './show-wait.js';
import { dispatch, type JobProcessor, ranFor, setUpWorker, type WorkerSetup } from './worker-setup.js';

/**
 * The worker role's action workers. The global POST rate (GATEWAY_ACTION_RATE) is BullMQ's limiter, shared
 * through Redis by every worker process. One gateway fault (a 5xx, a timeout) or a slow answer is its own
 * job's business: it reconciles and retries with jittered backoff. Only faults that persist (`faultStreak` in rate-limit.ts,
 * counted across processes) back them all off at once (the limiter key held "full" for the pause, as
 * worker.rateLimit does, see pauseAllWorkers), and the waiting jobs' messages then say so (show-wait.ts). A
 * 429 backs everyone off at once: the gateway has said so.
 */

export interface ActionWorkerOptions {
  /** A Redis URL, or a factory of new connections (the worker needs its own blocking one). */
  connection: string | RedisTarget | (() => Redis);
  prefix: string;
  gateway: GatewayClient;
  outbound: SlackOutbound;
  catalogue: () => Catalogue | Promise<Catalogue>;
  rate: Rate;
  actionTimeoutMs: number;
  concurrency?: number;
  logger?: AppLogger;
  /** Shared with the process's other connections, so a Redis outage is one line per interval. */
  redisOutage?: RedisOutageLog;
  /** Job durations, job retries and reconciliations are counted here when given. */
  metrics?: Metrics;
  /** Lease around reconcile-and-POST; renewed while it runs. Default 15 s. */
  leaseMs?: number;
  /** Wait before reconciling after an unknown outcome, so the gateway's write lands. Default 2 s. */
  reconcileGraceMs?: number;
  /** First backoff for everyone once gateway faults persist; doubles while they continue. Default 5 s. */
  backoffMs?: number;
  /** Gateway faults in a row (no good answer between) that slow the whole queue. Default 3. */
  faultThreshold?: number;
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
  /** The approvals feature's gate and outcome (approvals/); without it a guarded job never runs. */
  approvals?: ApprovalHooks;
  /** How long the "posting" checkpoint waits for a replica before the POST (0: not at all). */
  replicaWaitMs?: number;
  /**
   * "Request finished": told once a job has ended for good (done, needs a person, or failed with no attempt
   * left), in the worker that ran it (a cancel tells it from requests/cancel.ts). Whatever waits on a request's
   * end (a Workflow Builder step) listens here.
   */
  requestFinished?: RequestFinished;
  /** Told when a job starts, ends or fails an attempt (`ended`: it will not run again); Home tabs follow. */
  jobChanged?: (data: ActionJobData, change: { ended: boolean }) => Promise<void>;
}

export interface ActionWorkers {
  worker: Worker<ActionJobData, ActionJobOutcome>;
  close(): Promise<void>;
}

export function startActionWorkers(options: ActionWorkerOptions): ActionWorkers {
  const setup = setUpWorker(options, 'action-worker');
  const { logger, redis, redisOutage } = setup;
  // Read-only use of the queue: the waiting jobs and their waits, for the messages a slowdown updates.
  const queue = new ActionQueue({ connection: redis, prefix: options.prefix, rate: options.rate });
  queue.queue.on(
    'error',
    redisOutage.otherwise((error) => logger.error('queue error', error)),
  );
  const deps = jobDeps(options, setup, queue);
  const worker = createWorker(options, setup, dispatch(actionProcessors(deps)));
  followJobs(worker, options, setup, deps);
  worker.on('error', setup.onError(ACTION_QUEUE, 'worker error', options.metrics));

  return {
    worker,
    close: () => setup.close(worker, queue),
  };
}

/** The action queue's processors: one job kind, the action. */
function actionProcessors(deps: ActionJobDeps): Record<string, JobProcessor> {
  return { [ACTION_JOB_NAME]: (job, token) => processActionJob(job, token, deps) };
}

/** What every action job of this worker runs with. */
function jobDeps(options: ActionWorkerOptions, setup: WorkerSetup, queue: ActionQueue): ActionJobDeps {
  const { redis, logger } = setup;
  return {
    redis,
    prefix: options.prefix,
    gateway: options.gateway,
    outbound: options.outbound,
    ledger: new ActionLedger(redis, options.prefix),
    catalogue: options.catalogue,
    actionTimeoutMs: options.actionTimeoutMs,
    leaseMs: options.leaseMs ?? 15_000,
    reconcileGraceMs: options.reconcileGraceMs ?? 2_000,
    slowMs: options.slowMs ?? Math.max(1, Math.floor(options.actionTimeoutMs / 2)),
    ...backOffs(options, setup, queue),
    replicaWait: new ReplicaWait(options.replicaWaitMs ?? 0, logger),
    logger,
    metrics: options.metrics,
    approvals: options.approvals,
  };
}

/**
 * How gateway faults slow the queue: one fault waits on its own job; faults that persist pause every worker
 * (and the waiting jobs' messages say so); a 429 pauses every worker at once.
 */
function backOffs(
  options: ActionWorkerOptions,
  { redis, logger }: WorkerSetup,
  queue: ActionQueue,
): Pick<ActionJobDeps, 'backOff' | 'faultsCleared'> {
  const base = options.backoffMs ?? 5_000;
  const limiterKey = bullKeys(options.prefix, ACTION_QUEUE).limiter;
  const faults = faultStreak(redis, options.prefix, {
    baseMs: base,
    ...(options.faultThreshold ? { threshold: options.faultThreshold } : {}),
  });
  const backOff: ActionJobDeps['backOff'] = async (reason, opts = {}) => {
    if (opts.everyone) {
      const paused = await pauseAllWorkers(redis, limiterKey, base);
      await faults.rateLimited(paused);
      logger.warn(`backing every worker off for ${paused} ms: ${reason}`);
      return;
    }
    const { streak, pausedMs } = await faults.fault((ms) => pauseAllWorkers(redis, limiterKey, ms));
    if (!pausedMs) {
      logger.info(`gateway fault ${streak} in a row (${reason}); only its own job waits and retries`);
      return;
    }
    logger.warn(`gateway faults persist (${streak} in a row): every worker waits ${pausedMs} ms: ${reason}`);
    void showWait(
      { queue, outbound: options.outbound, catalogue: options.catalogue, logger },
      { holdsForMs: pausedMs },
    ).catch((error: unknown) => logger.warn('could not show the wait on queued jobs', error));
  };
  return { backOff, faultsCleared: () => faults.clear() };
}

/** The BullMQ worker: the global POST rate is its limiter, with a guard for the lag before a POST leaves. */
function createWorker(
  options: ActionWorkerOptions,
  { redis, blocking }: WorkerSetup,
  process: JobProcessor,
): Worker<ActionJobData, ActionJobOutcome> {
  const nowKey = fairKeys(options.prefix, ACTION_QUEUE, '').now;
  return new Worker<ActionJobData, ActionJobOutcome>(
    ACTION_QUEUE,
    async (job, token) => {
      // The fairness clock follows the jobs that start (see rate-limit.ts); it never blocks the POST.
      const clock = advanceFairClock(redis, nowKey, job.opts.priority ?? 0).catch(() => {});
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
}

/**
 * The worker's job events: every start and end is told to whoever follows jobs (Home tabs); a job that has
 * ended for good gives back its claim, is counted, and is told to its approval card and to whatever waits on
 * its request; a final failure nobody has told yet is reported in its thread.
 */
function followJobs(
  worker: Worker<ActionJobData, ActionJobOutcome>,
  options: ActionWorkerOptions,
  setup: WorkerSetup,
  deps: ActionJobDeps,
): void {
  const { logger, track } = setup;
  const { changed, ended } = jobEnds(options, setup);
  worker.on('active', (job) => changed(job.data, false));
  worker.on('completed', (job, result) => {
    changed(job.data, true);
    ended(job, result?.outcome ?? 'done', { outcome: result });
  });
  worker.on('failed', (job, error) => {
    const log = logger.child({ job: job?.id });
    log.warn(`job failed: ${error.message}`);
    changed(job?.data, Boolean(job?.finishedOn));
    if (job?.finishedOn) ended(job, 'failed', { error });
    else options.metrics?.retry('job', error instanceof RetryableJobError ? error.code : 'error');
    // finishedOn is set only when BullMQ will not try again; a reported error has been told already.
    if (!job?.finishedOn || wasReported(error)) return;
    track(
      reportFinalFailure(job, error, deps).catch((e: unknown) =>
        log.warn('could not report the failed job in its thread', e),
      ),
    );
  });
}

/** What the worker tells when a job changes (`changed`) and when it has ended for good (`ended`). */
function jobEnds(options: ActionWorkerOptions, { redis, logger, track }: WorkerSetup) {
  // A job that has ended gives back the fingerprint it held in flight, so an identical request may run again
  // (after a success the ledger makes it ask first). A lost release only lasts until the claim expires.
  const release = (data: ActionJobData) =>
    releaseJobClaim(redis, options.prefix, data).catch((e: unknown) =>
      logger.warn('could not release an in-flight claim', e),
    );
  // An approved job's end goes on its approval card too.
  const approvalEnded = (data: ActionJobData, end: JobEnd) => {
    if (!data.approval || !options.approvals) return;
    track(
      options.approvals
        .ended(data, end)
        .catch((e: unknown) => logger.warn('could not show an approved job’s outcome on its card', e)),
    );
  };
  const finished = (data: ActionJobData, end: JobEnd) => {
    if (!options.requestFinished) return;
    track(
      options
        .requestFinished(data, end)
        .catch((e: unknown) => logger.warn('a listener of a request’s end failed', e)),
    );
  };
  const changed = (data: ActionJobData | undefined, ended: boolean) => {
    if (data && options.jobChanged)
      void options
        .jobChanged(data, { ended })
        .catch((e: unknown) => logger.warn('could not report a job change', e));
  };
  const ended = (job: Job<ActionJobData, ActionJobOutcome>, outcome: string, end: JobEnd) => {
    void release(job.data);
    options.metrics?.jobEnded(ACTION_QUEUE, outcome, ranFor(job));
    approvalEnded(job.data, end);
    finished(job.data, end);
  };
  return { changed, ended };
}
