import { type Bot, createBot, startRoleServer } from './app.js';
import { type ApprovalWorkers, startApprovalWorker } from './approvals/approval-expiry.js';
import { approvalHooks } from './approvals/approval-outcome.js';
import { type DigestScheduler, startDigestScheduler } from './digests/digest-scheduler.js';
import { type DigestWorkers, startDigestWorkers } from './digests/digest-worker.js';
import type { HealthServer } from './http/health-server.js';
import { type ActionWorkers, startActionWorkers } from './jobs/action-worker.js';
import { replicaWaitMs } from './redis/replica.js';
import type { Built, Foundation } from './runtime-core.js';
import type { Sandbox } from './sandbox/index.js';
import { shutdownDeadline } from './shutdown.js';
import { createSlackPoster, createWorkerChatPoster, createWorkerSlackClient } from './slack/slack-poster.js';

/** What the roles of this process started: each one is there when its role runs. */
export interface Started {
  bot?: Bot;
  port?: number;
  workers?: ActionWorkers;
  digestWorkers?: DigestWorkers;
  approvalWorkers?: ApprovalWorkers;
  scheduler?: DigestScheduler;
  health?: HealthServer;
}

/** The worker starts after this long even if discovery has not answered (a dripping gateway, say). */
const FIRST_REFRESH_WAIT_MS = 3_000;

/** Starts the roles ROLE names (or the options name): workers, the scheduler, the web role or a health server. */
export async function startRoles(f: Foundation, built: Built): Promise<Started> {
  const { config, logger, options } = f;
  const runs = (role: 'web' | 'worker' | 'scheduler' | 'mcp') =>
    options.roles ? options.roles.includes(role) : config.role === role || config.role === 'all';
  const started: Started = {};
  if (runs('worker')) Object.assign(started, await startWorkerRole(f, built));
  if (runs('scheduler')) {
    started.scheduler = startDigestScheduler({
      queue: built.services.digestQueue,
      store: built.services.digests,
      logger,
      redisOutage: f.redisOutage,
      ...(options.digests?.pollMs ? { pollMs: options.digests.pollMs } : {}),
    });
  }
  const services = built.services;
  if (runs('web')) {
    const bot = createBot(services);
    started.bot = bot;
    started.port = await bot.start(config.port);
    logger.info(
      `web role serving on port ${started.port} (${config.slack.mode === 'socket' ? 'Socket Mode' : 'HTTP: /slack/events'})`,
    );
  } else {
    // The assistant tools apart (ROLE=mcp), or workers and the scheduler: health checks and scrapes either way.
    const health = await startRoleServer(services, config.port, runs('mcp'));
    started.health = health;
    started.port = health.port;
    logger.info(
      `${config.role} role serving ${runs('mcp') ? '/mcp, the sign-in, ' : ''}/healthz and /metrics on port ${started.port}`,
    );
  }

  // Every process is scraped for the action queue's depth (a worker's or the scheduler's /metrics too).
  f.metrics.watchQueue(services.queue.queue);
  f.metrics.watchRedis(services.redis);
  built.listening.port = started.port;
  return started;
}

/** The worker role: the action, digest and approval-expiry workers, posting with a paced Slack client. */
async function startWorkerRole(f: Foundation, built: Built): Promise<Started> {
  const { config, logger, options, botToken, gateway, metrics, redisOutage } = f;
  const { catalogue, steps, jobChanged } = built;
  const approvals = built.services.approvals;
  if (!(await catalogue.refreshWithin(FIRST_REFRESH_WAIT_MS))) {
    logger.warn(
      `the gateway's discovery call has not answered within ${FIRST_REFRESH_WAIT_MS} ms; starting with the spec's actions, the catalogue fills in when it answers`,
    );
  }
  const workerSlack = createWorkerSlackClient(botToken, config.slack.apiUrl, logger);
  const workerOutbound = createSlackPoster(workerSlack, {
    postIntervalMs: config.slack.postIntervalMs,
    chat: createWorkerChatPoster(botToken, config.slack.apiUrl),
  });
  const workers = startActionWorkers({
    connection: config.redis,
    prefix: config.redis.prefix,
    gateway,
    outbound: workerOutbound,
    approvals: approvalHooks(approvals, workerOutbound),
    catalogue: catalogue.get,
    rate: config.gateway.actionRate,
    actionTimeoutMs: config.gateway.actionTimeoutMs,
    replicaWaitMs: replicaWaitMs(config.redis.form),
    logger,
    metrics,
    redisOutage,
    jobChanged,
    requestFinished: (data, ended) => steps.requestFinished(data, ended),
    ...options.worker,
  });
  const digestWorkers = startDigestWorkers({
    connection: config.redis,
    prefix: config.redis.prefix,
    gateway,
    outbound: workerOutbound,
    tz: config.digestTz,
    spreadMs: config.digestSpreadMs,
    logger,
    metrics,
    redisOutage,
    ...(options.digests?.leaseMs ? { leaseMs: options.digests.leaseMs } : {}),
  });
  const approvalWorkers = startApprovalWorker({
    connection: config.redis,
    prefix: config.redis.prefix,
    store: approvals,
    outbound: workerOutbound,
    logger,
    metrics,
    redisOutage,
  });
  return { workers, digestWorkers, approvalWorkers };
}

/**
 * Stops what started, in order: stop taking requests first, then let in-flight jobs finish within the bound,
 * then close connections. One deadline for the whole stop, not one per step: a step that hangs (a gateway
 * request that never answers, a Redis that does not) is given up on, and the steps after it still run and are
 * forced.
 */
export async function stopRuntime(
  f: Foundation,
  built: Built,
  started: Started,
  sandbox: Sandbox | undefined,
  timeoutMs: number,
): Promise<void> {
  const { logger, redis, gateway, assistantGateway } = f;
  const { bot, health, scheduler, workers, digestWorkers, approvalWorkers } = started;
  const bounded = shutdownDeadline(timeoutMs, logger);
  await bounded('web', () => bot?.stop());
  await bounded('health', () => health?.close());
  await bounded('answers', () =>
    Promise.all([built.ifMade('answers')?.drain(), built.ifMade('gatewayAnswers')?.drain()]),
  );
  await bounded('scheduler', () => scheduler?.close());
  await bounded('workers', () => workers?.close());
  await bounded('digest workers', () => digestWorkers?.close());
  await bounded('approval workers', () => approvalWorkers?.close());
  await bounded('approval queue', () => built.ifMade('approvalExpiry')?.close());
  await bounded('queue', () => built.ifMade('queue')?.close());
  await bounded('digest queue', () => built.ifMade('digestQueue')?.close());
  for (const client of [gateway, assistantGateway])
    if (!(await bounded('gateway', () => client.close()))) await client.destroy().catch(() => {});
  if (!(await bounded('redis', () => redis.quit()))) redis.disconnect();
  await bounded('sandbox', () => sandbox?.close());
}
