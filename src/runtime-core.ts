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
  /** The names of the parts this process has built so far: those its roles used (a worker builds no access). */
  made(): string[];
  /** A part if a role has used it, else undefined (stop closes what is open, and opens nothing). */
  ifMade<K extends keyof BotServices>(key: K): BotServices[K] | undefined;
}

/** A value made on its first use and kept. */
function once<T>(make: () => T): () => T {
  let value: { made: T } | undefined;
  return () => {
    value ??= { made: make() };
    return value.made;
  };
}

type Makers<T> = { [K in keyof T]: () => T[K] };

/**
 * An object whose every part is made on first use and kept: a role builds only the parts it reads. Not to be
 * spread or enumerated (that would make every part).
 */
function lazily<T extends object>(makers: Makers<T>, made: Map<keyof T, unknown>): T {
  const parts = {} as T;
  for (const key of Object.keys(makers) as Array<keyof T & string>) {
    const part = once(() => {
      const value = makers[key]();
      made.set(key, value);
      return value;
    });
    Object.defineProperty(parts, key, { get: part, enumerable: false });
  }
  return parts;
}

/** The queues, each made when a role first uses it, its errors logged once. */
function queueParts(f: Foundation, jobChanged: Built['jobChanged']) {
  const { config, redis, logger, redisOutage, options } = f;
  const prefix = config.redis.prefix;
  // BullMQ's queues share the connection above; their errors would otherwise reach stderr as raw traces.
  const logged = <T extends { queue: { on(event: 'error', listener: (error: Error) => void): unknown } }>(
    q: T,
  ) => {
    q.queue.on(
      'error',
      redisOutage.otherwise((error) => logger.error('queue error', error)),
    );
    return q;
  };
  return {
    queue: () =>
      logged(
        new ActionQueue({
          ...{ connection: redis, prefix, logger, rate: config.gateway.actionRate },
          replicaWaitMs: replicaWaitMs(config.redis.form),
          changed: jobChanged,
        }),
      ),
    digestQueue: () =>
      logged(
        new DigestQueue({
          ...{ connection: redis, prefix },
          ...(options.digests?.jobOptions ? { jobOptions: options.digests.jobOptions } : {}),
        }),
      ),
    approvalExpiry: () => logged(new ApprovalExpiry({ connection: redis, prefix })),
  } satisfies Partial<Makers<BotServices>>;
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
 * Every part of the core, each made when a role first uses it and then kept: which roles run decides what is
 * started (runtime-roles.ts) and, through what they use, what is built.
 */
export function buildServices(f: Foundation): Built {
  const { config, logger, redis, gateway } = f;
  const made = new Map<keyof BotServices, unknown>();
  const catalogue = new CatalogueSource(() => gateway.discover(), config.guardedActions, logger);
  // Whose Home tab is out of date: any process marks it, the web role re-publishes it.
  const homeMarks = new HomeMarks(redis, config.redis.prefix, { admins: config.admins });
  const access = once(() => buildAccess(f));
  const { steps, approvals } = buildApprovals(f, homeMarks, catalogue);
  const listening: Built['listening'] = {};
  const services: BotServices = lazily<BotServices>(
    {
      ...foundationParts(f, catalogue, listening),
      ...storeParts(f, homeMarks),
      ...queueParts(f, homeMarks.jobChanged),
      access: () => access().access,
      approvals: () => approvals,
      // The request layer posts each job's "queued" message before the job exists: the web role's Slack client,
      // with a person waiting, so a 429 is waited out inside the client and not again on top.
      outbound: () =>
        createSlackPoster(createWebSlackClient(f.botToken, config.slack.apiUrl, logger), { maxWaits: 0 }),
      reach: () =>
        new ClientReach(
          services.access,
          access().directory,
          services.bindings,
          logger.child({ part: 'access' }),
        ),
      tokens: () => tokenFeature(f, services, homeMarks),
      requests: () => requestLayer(services, steps),
      ...answerParts(),
    },
    made,
  );
  return {
    services,
    catalogue,
    steps,
    jobChanged: homeMarks.jobChanged,
    listening,
    made: () => [...made.keys()].sort(),
    ifMade: <K extends keyof BotServices>(key: K) => made.get(key) as BotServices[K] | undefined,
  };
}

/** What start made before the services, as they are. */
function foundationParts(f: Foundation, catalogue: CatalogueSource, listening: Built['listening']) {
  const { config } = f;
  return {
    config: () => config,
    logger: () => f.logger,
    redis: () => f.redis,
    redisOutage: () => f.redisOutage,
    gateway: () => f.gateway,
    metrics: () => f.metrics,
    assistantGateway: () => f.assistantGateway,
    assistantReads: () => f.assistantReads,
    catalogue: () => catalogue.get,
    botUrl: () => () => config.mcp.publicUrl ?? `http://localhost:${listening.port ?? config.port}`,
  } satisfies Partial<Makers<BotServices>>;
}

/** The stores: thin views of Redis keys. */
function storeParts(f: Foundation, homeMarks: HomeMarks) {
  const { redis } = f;
  const prefix = f.config.redis.prefix;
  return {
    // A bind or an unbind changes the channels every Home tab may list.
    bindings: () => new BindingStore(redis, prefix, { changed: () => homeMarks.everyone() }),
    signoffs: () => new SignoffStore(redis, prefix),
    ledger: () => new ActionLedger(redis, prefix),
    digests: () => new DigestStore(redis, prefix),
    assistantTokens: () =>
      new AssistantTokenStore(redis, prefix, { changed: (user) => homeMarks.mark([user]) }),
  } satisfies Partial<Makers<BotServices>>;
}

/** Assistant access: static tokens, sign-in grants, the sign-in itself. */
function tokenFeature(f: Foundation, services: CoreServices, homeMarks: HomeMarks) {
  const { config, redis, logger, options } = f;
  return createTokenFeature({
    ...{ config, redis, logger, metadataCa: options.metadataCa },
    access: services.access,
    reach: services.reach,
    tokens: services.assistantTokens,
    replicaWait: new ReplicaWait(replicaWaitMs(config.redis.form), logger),
    changed: (user) => homeMarks.mark([user]),
  });
}

/** The request layer over the core's parts. */
function requestLayer(services: CoreServices, steps: StepEnds): ActionRequests {
  const { config, outbound, approvals } = services;
  return new ActionRequests({
    redis: services.redis,
    prefix: config.redis.prefix,
    logger: services.logger,
    gateway: services.gateway,
    catalogue: services.catalogue,
    bindings: services.bindings,
    queue: services.queue,
    ledger: services.ledger,
    metrics: services.metrics,
    access: services.access,
    outbound,
    approvalHooks: approvalHooks(approvals, outbound),
    requestFinished: (data, ended) => steps.requestFinished(data, ended),
  });
}

/** What only the Slack surfaces use: the answer lanes. */
function answerParts() {
  return {
    // Answers that need Redis and Slack alone: one lane of 16 slots. Those that read the gateway: 16 slots, at
    // most 4 for one command word (one resource).
    answers: () => new AnswerLanes(16, 16),
    gatewayAnswers: () => new AnswerLanes(16, 4),
  } satisfies Partial<Makers<BotServices>>;
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
