import { ClientReach } from './access/client-reach.js';
import { AccessPolicy } from './access/policy.js';
import { UserDirectory } from './access/user-directory.js';
import { UserGroups } from './access/user-groups.js';
import { CatalogueSource } from './actions/catalogue-source.js';
import { ApprovalExpiry } from './approvals/approval-expiry.js';
import { approvalHooks } from './approvals/approval-outcome.js';
import { ApprovalStore } from './approvals/approval-store.js';
import type { AssistantReads } from './assistant-calls.js';
import { BindingStore } from './bindings/binding-store.js';
import { SignoffStore } from './bindings/signoff-store.js';
import type { Config } from './config.js';
import { DigestQueue } from './digests/digest-queue.js';
import { DigestStore } from './digests/store.js';
import type { GatewayClient } from './gateway/client.js';
import { ActionQueue } from './jobs/queue.js';
import type { AppLogger } from './logger.js';
import type { Metrics } from './metrics.js';
import type { Redis } from './redis/connection.js';
import type { RedisOutageLog } from './redis/outage.js';
import { ReplicaWait, replicaWaitMs } from './redis/replica.js';
import { ActionRequests } from './requests/action-requests.js';
import type { RuntimeOptions } from './runtime.js';
import type { BotServices, CoreServices } from './services.js';
import { AnswerLanes } from './slack/answer-lanes.js';
import { createSlackPeople } from './slack/people.js';
import { createSlackPoster } from './slack/slack-poster.js';
import { createPeopleClient, createWebSlackClient } from './slack/web-clients.js';
import { AssistantTokenStore } from './store/assistant-token-store.js';
import { HomeMarks } from './store/home-marks.js';
import { ActionLedger } from './store/ledger.js';
import { RedisMembershipVersions } from './store/membership-versions.js';
import { createTokenFeature } from './tokens/index.js';
import { StepEnds } from './workflows/index.js';

/** What start made before the services: Redis, the metrics and the gateway clients. */
export interface Foundation {
  config: Config;
  logger: AppLogger;
  options: RuntimeOptions;
  botToken: string;
  redis: Redis;
  redisOutage: RedisOutageLog;
  metrics: Metrics;
  gateway: GatewayClient;
  assistantGateway: GatewayClient;
  assistantReads: AssistantReads;
}

/** The services, and what the roles need beside them. */
export interface Built {
  services: BotServices;
  catalogue: CatalogueSource;
  steps: StepEnds;
  jobChanged: HomeMarks['jobChanged'];
  /** The port the process serves on, once a role listens (an assistant's links name it). */
  listening: { port?: number };
}

/** The queues every role shares, their errors logged once (BullMQ's would reach stderr as raw traces). */
function buildQueues(f: Foundation, jobChanged: Built['jobChanged']) {
  const { config, redis, metrics, logger, redisOutage, options } = f;
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
  const approvalExpiry = new ApprovalExpiry({ connection: redis, prefix: config.redis.prefix });
  // BullMQ's queues share the connection above; their errors would otherwise reach stderr as raw traces.
  for (const q of [queue.queue, digestQueue.queue, approvalExpiry.queue])
    q.on(
      'error',
      redisOutage.otherwise((error) => logger.error('queue error', error)),
    );
  return { queue, digestQueue, approvalExpiry };
}

/** Who someone is and what they may do: Slack's users and groups through the port, cached, versioned in Redis. */
function buildAccess(f: Foundation) {
  const { config, redis, logger, options, botToken } = f;
  const people = createSlackPeople(createPeopleClient(botToken, config.slack.apiUrl, logger));
  // Every process reads one membership version per person, moved by Slack's join and leave events.
  const directory = new UserDirectory(people, {
    ...(options.userCacheMs ? { ttlMs: options.userCacheMs } : {}),
    versions: new RedisMembershipVersions(redis, config.redis.prefix),
  });
  const access = new AccessPolicy(
    config,
    directory,
    new UserGroups(people, options.userCacheMs ? { ttlMs: options.userCacheMs } : {}),
    logger.child({ part: 'access' }),
  );
  return { directory, access };
}

/**
 * Every part of the core, built once: stores, queues, access, the approval store, the tokens, the request layer.
 * Which roles run decides what is started (runtime-roles.ts), not what is built.
 */
export function buildServices(f: Foundation): Built {
  const { config, logger, redis, redisOutage, metrics, gateway, assistantGateway, assistantReads, options } =
    f;
  const botToken = f.botToken;
  const catalogue = new CatalogueSource(() => gateway.discover(), config.guardedActions, logger);
  // Whose Home tab is out of date: any process marks it, the web role re-publishes it.
  const homeMarks = new HomeMarks(redis, config.redis.prefix, { admins: config.admins });
  const jobChanged = homeMarks.jobChanged;
  const { queue, digestQueue, approvalExpiry } = buildQueues(f, jobChanged);
  const digests = new DigestStore(redis, config.redis.prefix);
  const { directory, access } = buildAccess(f);
  // A bind or an unbind changes the channels every Home tab may list.
  const bindings = new BindingStore(redis, config.redis.prefix, { changed: () => homeMarks.everyone() });
  // The request layer posts each job's "queued" message before the job exists: the web role's Slack client,
  // with a person waiting, so a 429 is waited out inside the client and not again on top.
  const webSlack = createWebSlackClient(botToken, config.slack.apiUrl, logger);
  const slack = createSlackPoster(webSlack, { maxWaits: 0 });
  const { steps, approvals } = buildApprovals(f, homeMarks, catalogue);
  const assistantTokens = new AssistantTokenStore(redis, config.redis.prefix, {
    changed: (user) => homeMarks.mark([user]),
  });
  const reach = new ClientReach(access, directory, bindings, logger.child({ part: 'access' }));
  const listening: Built['listening'] = {};
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
      ...{ config, redis, access, reach, logger, metadataCa: options.metadataCa },
      tokens: assistantTokens,
      replicaWait: new ReplicaWait(replicaWaitMs(config.redis.form), logger),
      changed: (user) => homeMarks.mark([user]),
    }),
    reach,
    botUrl: () => config.mcp.publicUrl ?? `http://localhost:${listening.port ?? config.port}`,
    assistantGateway,
    assistantReads,
  };
  const services = withRequests(parts, steps);
  return { services, catalogue, steps, jobChanged, listening };
}

/** The request layer over the core's parts, and the answer lanes of the surfaces. */
function withRequests(parts: Omit<CoreServices, 'requests'>, steps: StepEnds): BotServices {
  const { config, slack, approvals } = parts;
  const core: CoreServices = {
    ...parts,
    requests: new ActionRequests({
      ...parts,
      prefix: config.redis.prefix,
      outbound: slack,
      approvalHooks: approvalHooks(approvals, slack),
      requestFinished: (data, ended) => steps.requestFinished(data, ended),
    }),
  };
  // Answers that need Redis and Slack alone: one lane of 16 slots. Those that read the gateway: 16 slots, at most
  // 4 for one command word (one resource).
  return {
    ...core,
    answers: new AnswerLanes(16, 16),
    gatewayAnswers: new AnswerLanes(16, 4),
  };
}

/** The one approval store of this process, and the Workflow Builder steps that end on its outcomes. */
function buildApprovals(f: Foundation, homeMarks: HomeMarks, catalogue: CatalogueSource) {
  const { config, redis, logger, metrics } = f;
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
  return { steps, approvals };
}
