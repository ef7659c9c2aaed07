import { ClientReach } from './access/client-reach.js';
import { AccessPolicy } from './access/policy.js';
import { UserDirectory } from './access/user-directory.js';
import { UserGroups } from './access/user-groups.js';
import { CatalogueSource } from './actions/catalogue-source.js';
import { confirmGuardedNames } from './actions/guarded.js';
import { type Bot, createBot, startRoleServer } from './app.js';
import { ApprovalExpiry, type ApprovalWorkers, startApprovalWorker } from './approvals/approval-expiry.js';
import { approvalHooks } from './approvals/approval-outcome.js';
import { ApprovalStore } from './approvals/approval-store.js';
import { assistantGatewayOf } from './assistant-calls.js';
import { BindingStore } from './bindings/binding-store.js';
import { SignoffStore } from './bindings/signoff-store.js';
import type { Config } from './config.js';
import { DigestQueue } from './digests/digest-queue.js';
import { type DigestScheduler, startDigestScheduler } from './digests/digest-scheduler.js';
import { type DigestWorkers, startDigestWorkers } from './digests/digest-worker.js';
import { DigestStore } from './digests/store.js';
import { GatewayClient } from './gateway/client.js';
import type { RetryPolicy } from './gateway/retry.js';
import { SANDBOX_KEYS } from './gateway/spec.js';
import type { HealthServer } from './http/health-server.js';
import { type ActionWorkers, startActionWorkers } from './jobs/action-worker.js';
import { ActionQueue } from './jobs/queue.js';
import type { AppLogger } from './logger.js';
import { Metrics } from './metrics.js';
import { createRedis } from './redis/connection.js';
import { RedisOutageLog, redisReadyAtStart } from './redis/outage.js';
import { ReplicaWait, replicaWaitMs } from './redis/replica.js';
import { ActionRequests } from './requests/action-requests.js';
import type { Sandbox } from './sandbox/index.js';
import { recentAnchor, startSandbox } from './sandbox/index.js';
import type { BotServices, CoreServices } from './services.js';
import { shutdownDeadline } from './shutdown.js';
import { AnswerLanes } from './slack/answer-lanes.js';
import { createSlackPeople } from './slack/people.js';
import { createSlackPoster, createWorkerSlackClient } from './slack/slack-poster.js';
import { createPeopleClient, createWebSlackClient } from './slack/web-clients.js';
import { AssistantTokenStore } from './store/assistant-token-store.js';
import { gatewayReadGate } from './store/fleet-read-slots.js';
import { HomeMarks } from './store/home-marks.js';
import { ActionLedger } from './store/ledger.js';
import { RedisMembershipVersions } from './store/membership-versions.js';
import { createTokenFeature } from './tokens/index.js';
import { StepEnds } from './workflows/index.js';

export interface Runtime {
  services: BotServices;
  bot?: Bot;
  /** The HTTP port this process serves on: the web role's (Slack events in HTTP mode), health and metrics always. */
  port?: number;
  workers?: ActionWorkers;
  digestWorkers?: DigestWorkers;
  /** The scheduler role: upserts the digests' job schedulers. */
  scheduler?: DigestScheduler;
  /** The in-process sandbox gateway, when GATEWAY_BASE_URL=sandbox. */
  sandbox?: Sandbox;
  stop(timeoutMs?: number): Promise<void>;
}

export interface RuntimeOptions {
  /** Which roles to start instead of ROLE's; none builds the services alone (the command test harness). */
  roles?: ReadonlyArray<'web' | 'worker' | 'scheduler' | 'mcp'>;
  /** How long who someone is (users.info) and their channels stand; default 5 minutes (tests shorten it). */
  userCacheMs?: number;
  /** Worker tuning for tests and benchmarks (short grace periods, short backoffs). */
  worker?: Partial<Parameters<typeof startActionWorkers>[0]>;
  /** The gateway client's GET retry policy (tests shorten the backoff). */
  gatewayRetry?: Partial<RetryPolicy>;
  /** Certificate authorities the sign-in trusts for OAUTH_METADATA_ALLOWED_HOSTS (tests serve documents on TLS). */
  metadataCa?: string;
  /** Digest tuning for tests: job options (short backoffs), the scheduler's poll interval, the run lease. */
  digests?: {
    jobOptions?: ConstructorParameters<typeof DigestQueue>[0]['jobOptions'];
    pollMs?: number;
    leaseMs?: number;
  };
}

/** The worker starts after this long even if discovery has not answered (a dripping gateway, say). */
const FIRST_REFRESH_WAIT_MS = 3_000;
/** How long start waits for Redis before saying it is not answering (the process then exits). */
const REDIS_START_WAIT_MS = 3_000;

const SANDBOX_NOT_CHOSEN =
  'GATEWAY_BASE_URL is not set. Set it (and GATEWAY_API_KEY) to your gateway, as shown in the agency ' +
  'automations area; or set GATEWAY_BASE_URL=sandbox to run against the built-in sandbox and its sample ' +
  'clients on purpose. `npm run demo` needs neither.';

/**
 * The composition root: builds every part once from the config and starts the roles that ROLE
 * names. main.ts, the demo and the end-to-end tests all start the bot through here, so they run the same thing.
 */
export async function startRuntime(
  config: Config,
  logger: AppLogger,
  options: RuntimeOptions = {},
): Promise<Runtime> {
  const botToken = config.slack.botToken;
  if (!botToken) {
    throw new Error(
      'SLACK_BOT_TOKEN is required (OAuth & Permissions → Bot User OAuth Token); `npm run demo` needs none.',
    );
  }
  // Real Slack people must never be served the sandbox's sample clients by a forgotten variable.
  if (!config.gateway.baseUrl && !config.gateway.sandbox) throw new Error(SANDBOX_NOT_CHOSEN);
  if (config.gateway.baseUrl && !config.gateway.apiKey)
    throw new Error('GATEWAY_API_KEY is required with GATEWAY_BASE_URL (agency automations area).');

  // Without Redis nothing works: a person is told so in one line at start, instead of a flood of retries.
  const redis = createRedis(config.redis);
  const redisOutage = new RedisOutageLog(logger, config.redis.url);
  await redisReadyAtStart(redis, config.redis.url, REDIS_START_WAIT_MS).catch((e) => {
    redis.disconnect();
    throw e;
  });
  let sandbox: Sandbox | undefined;
  let gatewayUrl = config.gateway.baseUrl;
  let apiKey = config.gateway.apiKey;
  if (!gatewayUrl) {
    const { seed, ...knobs } = config.sandbox;
    // Its sample data ends the day before today: a person reading it sees recent dates.
    sandbox = await startSandbox({ port: 0, seed, knobs, anchorDate: recentAnchor() });
    gatewayUrl = sandbox.url;
    // Honoured as the standalone sandbox honours it (sandbox-revoked: 401); unset, the key that reaches all.
    apiKey ??= SANDBOX_KEYS.full;
    logger.info(`GATEWAY_BASE_URL=sandbox: using the built-in sandbox gateway at ${sandbox.url}`);
  }
  if (!apiKey)
    throw new Error('GATEWAY_API_KEY is required with GATEWAY_BASE_URL (agency automations area).');
  redisOutage.watch(redis);

  const metrics = new Metrics();
  const gatewayOptions = {
    baseUrl: gatewayUrl,
    apiKey,
    logger: logger.child({ part: 'gateway' }),
    actionTimeoutMs: config.gateway.actionTimeoutMs,
    readTimeoutMs: config.gateway.readTimeoutMs,
    readGate: gatewayReadGate(redis, config.redis.prefix, config.gateway),
    observer: metrics.gatewayObserver(),
    ...(options.gatewayRetry ? { retry: options.gatewayRetry } : {}),
  };
  const gateway = new GatewayClient(gatewayOptions);
  const { assistantGateway, assistantReads } = assistantGatewayOf(gatewayOptions, config.mcp.reads);
  await confirmGuardedNames(config.guardedActions, () => gateway.discover(), logger).catch(async (e) => {
    await Promise.allSettled([gateway.close(), assistantGateway.close(), redis.quit(), sandbox?.close()]);
    throw e;
  });
  const catalogue = new CatalogueSource(() => gateway.discover(), config.guardedActions, logger);
  // Whose Home tab is out of date: any process marks it, the web role re-publishes it.
  const homeMarks = new HomeMarks(redis, config.redis.prefix, { admins: config.admins });
  const jobChanged = homeMarks.jobChanged;
  const queue = new ActionQueue({
    connection: redis,
    prefix: config.redis.prefix,
    logger,
    rate: config.gateway.actionRate,
    replicaWaitMs: replicaWaitMs(config.redis.form),
    changed: jobChanged,
  });
  metrics.watchQueue(queue.queue);
  const digestQueue = new DigestQueue({
    connection: redis,
    prefix: config.redis.prefix,
    ...(options.digests?.jobOptions ? { jobOptions: options.digests.jobOptions } : {}),
  });
  const digests = new DigestStore(redis, config.redis.prefix);
  const approvalExpiry = new ApprovalExpiry({ connection: redis, prefix: config.redis.prefix });
  // BullMQ's queues share the connection above; their errors would otherwise reach stderr as raw traces.
  for (const q of [queue.queue, digestQueue.queue, approvalExpiry.queue])
    q.on(
      'error',
      redisOutage.otherwise((error) => logger.error('queue error', error)),
    );
  const people = createSlackPeople(createPeopleClient(botToken, config.slack.apiUrl, logger));
  // Every process reads one membership version per person, moved by Slack's join and leave events.
  const directory = new UserDirectory(people, {
    ...(options.userCacheMs ? { ttlMs: options.userCacheMs } : {}),
    versions: new RedisMembershipVersions(redis, config.redis.prefix),
  });
  const access = new AccessPolicy(
    config,
    directory,
    new UserGroups(people),
    logger.child({ part: 'access' }),
  );
  // A bind or an unbind changes the channels every Home tab may list.
  const bindings = new BindingStore(redis, config.redis.prefix, { changed: () => homeMarks.everyone() });
  // The request layer posts each job's "queued" message before the job exists: the web role's Slack client,
  // with a person waiting, so a 429 is waited out inside the client and not again on top.
  const webSlack = createWebSlackClient(botToken, config.slack.apiUrl, logger);
  const slack = createSlackPoster(webSlack, { maxWaits: 0 });
  // Workflow Builder steps end on outcomes of any role: a job's end (workers), a rejection (web), an expiry.
  const steps = new StepEnds({ redis, config, catalogue: catalogue.get, logger });
  // The one approval store of this process: the web role's clicks, the worker's gate and the expiry share it.
  const approvals = new ApprovalStore(redis, config.redis.prefix, {
    metrics,
    // A step's end is not awaited: a decision's answer never waits on Slack's Workflow API.
    changed: (record) => {
      void steps.approvalChanged(record).catch((e: unknown) => logger.warn('workflow step not ended', e));
      return homeMarks.approvalChanged(record.requestedBy);
    },
  });
  const assistantTokens = new AssistantTokenStore(redis, config.redis.prefix, {
    changed: (user) => homeMarks.mark([user]),
  });
  const reach = new ClientReach(access, directory, bindings, logger.child({ part: 'access' }));
  let port: number | undefined;
  const parts = {
    config,
    logger,
    redis,
    redisOutage,
    gateway,
    catalogue: catalogue.get,
    bindings,
    signoffs: new SignoffStore(redis, config.redis.prefix),
    queue,
    ledger: new ActionLedger(redis, config.redis.prefix),
    digests,
    digestQueue,
    metrics,
    access,
    approvals,
    approvalExpiry,
    slack,
    assistantTokens,
    tokens: createTokenFeature({
      config,
      redis,
      tokens: assistantTokens,
      replicaWait: new ReplicaWait(replicaWaitMs(config.redis.form), logger),
      access,
      reach,
      logger,
      changed: (user) => homeMarks.mark([user]),
      metadataCa: options.metadataCa,
    }),
    reach,
    botUrl: () => config.mcp.publicUrl ?? `http://localhost:${port ?? config.port}`,
    assistantGateway,
    assistantReads,
  };
  const core: CoreServices = {
    ...parts,
    requests: new ActionRequests({
      ...parts,
      prefix: config.redis.prefix,
      reporter: slack,
      approvalHooks: approvalHooks(approvals, slack),
      requestFinished: (data, ended) => steps.requestFinished(data, ended),
    }),
  };
  // Answers that need Redis and Slack alone: one lane of 16 slots. Those that read the gateway: 16 slots, at most
  // 4 for one command word (one resource).
  const services: BotServices = {
    ...core,
    answers: new AnswerLanes(16, 16),
    gatewayAnswers: new AnswerLanes(16, 4),
  };

  const runs = (role: 'web' | 'worker' | 'scheduler' | 'mcp') =>
    options.roles ? options.roles.includes(role) : config.role === role || config.role === 'all';
  let bot: Bot | undefined;
  let workers: ActionWorkers | undefined;
  let digestWorkers: DigestWorkers | undefined;
  let approvalWorkers: ApprovalWorkers | undefined;
  let scheduler: DigestScheduler | undefined;
  let health: HealthServer | undefined;
  if (runs('worker')) {
    if (!(await catalogue.refreshWithin(FIRST_REFRESH_WAIT_MS))) {
      logger.warn(
        `the gateway's discovery call has not answered within ${FIRST_REFRESH_WAIT_MS} ms; starting with the spec's actions, the catalogue fills in when it answers`,
      );
    }
    const workerSlack = createWorkerSlackClient(botToken, config.slack.apiUrl, logger);
    const workerPoster = createSlackPoster(workerSlack, { postIntervalMs: config.slack.postIntervalMs });
    workers = startActionWorkers({
      connection: config.redis,
      prefix: config.redis.prefix,
      gateway,
      slack: workerPoster,
      approvals: approvalHooks(approvals, workerPoster),
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
    digestWorkers = startDigestWorkers({
      connection: config.redis,
      prefix: config.redis.prefix,
      gateway,
      slack: workerPoster,
      tz: config.digestTz,
      spreadMs: config.digestSpreadMs,
      logger,
      metrics,
      redisOutage,
      ...(options.digests?.leaseMs ? { leaseMs: options.digests.leaseMs } : {}),
    });
    approvalWorkers = startApprovalWorker({
      connection: config.redis,
      prefix: config.redis.prefix,
      store: approvals,
      poster: workerPoster,
      logger,
      metrics,
      redisOutage,
    });
  }
  if (runs('scheduler')) {
    scheduler = startDigestScheduler({
      queue: digestQueue,
      store: digests,
      logger,
      redisOutage,
      ...(options.digests?.pollMs ? { pollMs: options.digests.pollMs } : {}),
    });
  }
  if (runs('web')) {
    bot = createBot(services);
    port = await bot.start(config.port);
    logger.info(
      `web role serving on port ${port} (${config.slack.mode === 'socket' ? 'Socket Mode' : 'HTTP: /slack/events'})`,
    );
  } else {
    // The assistant tools apart (ROLE=mcp), or workers and the scheduler: health checks and scrapes either way.
    health = await startRoleServer(services, config.port, runs('mcp'));
    port = health.port;
    logger.info(
      `${config.role} role serving ${runs('mcp') ? '/mcp, the sign-in, ' : ''}/healthz and /metrics on port ${port}`,
    );
  }

  return {
    services,
    bot,
    port,
    workers,
    digestWorkers,
    scheduler,
    sandbox,
    async stop(timeoutMs = 10_000) {
      // Stop taking requests first, then let in-flight jobs finish within the bound, then close connections.
      // One deadline for the whole stop, not one per step: a step that hangs (a gateway request that never
      // answers, a Redis that does not) is given up on, and the steps after it still run and are forced.
      const bounded = shutdownDeadline(timeoutMs, logger);
      await bounded('web', () => bot?.stop());
      await bounded('health', () => health?.close());
      await bounded('answers', () =>
        Promise.all([services.answers.drain(), services.gatewayAnswers.drain()]),
      );
      await bounded('scheduler', () => scheduler?.close());
      await bounded('workers', () => workers?.close());
      await bounded('digest workers', () => digestWorkers?.close());
      await bounded('approval workers', () => approvalWorkers?.close());
      await bounded('approval queue', () => approvalExpiry.close());
      await bounded('queue', () => queue.close());
      await bounded('digest queue', () => digestQueue.close());
      for (const client of [gateway, assistantGateway])
        if (!(await bounded('gateway', () => client.close()))) await client.destroy().catch(() => {});
      if (!(await bounded('redis', () => redis.quit()))) redis.disconnect();
      await bounded('sandbox', () => sandbox?.close());
    },
  };
}
