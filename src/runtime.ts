import { confirmGuardedNames } from './actions/guarded.js';
import type { Bot } from './app.js';
import { assistantGatewayOf } from './assistant-calls.js';
import type { Config } from './config.js';
import type { DigestQueue } from './digests/digest-queue.js';
import type { DigestScheduler } from './digests/digest-scheduler.js';
import type { DigestWorkers } from './digests/digest-worker.js';
import { GatewayClient } from './gateway/client.js';
import type { RetryPolicy } from './gateway/retry.js';
import { SANDBOX_KEYS } from './gateway/spec.js';
import type { ActionWorkers, startActionWorkers } from './jobs/action-worker.js';
import type { AppLogger } from './logger.js';
import { Metrics } from './metrics.js';
import type { Redis } from './redis/connection.js';
import { createRedis } from './redis/connection.js';
import { RedisOutageLog, redisReadyAtStart } from './redis/outage.js';
import { buildServices, type Foundation } from './runtime-core.js';
import { startRoles, stopRuntime } from './runtime-roles.js';
import type { Sandbox } from './sandbox/index.js';
import { recentAnchor, startSandbox } from './sandbox/index.js';
import type { BotServices } from './services.js';
import { gatewayReadGates } from './store/fleet-read-slots.js';

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
  /** The names of the core's parts this process has built: those its roles used (a worker builds no access). */
  made(): string[];
  stop(timeoutMs?: number): Promise<void>;
}

export interface RuntimeOptions {
  /** Which roles to start instead of ROLE's; none builds the services alone (the command test harness). */
  roles?: ReadonlyArray<'web' | 'worker' | 'scheduler' | 'mcp'>;
  /** How long who someone is (users.info), their channels and who is in a group stand; default 5 minutes (tests shorten it). */
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

/** How long start waits for Redis before saying it is not answering (the process then exits). */
const REDIS_START_WAIT_MS = 3_000;

const SANDBOX_NOT_CHOSEN =
  'GATEWAY_BASE_URL is not set. Set it (and GATEWAY_API_KEY) to your gateway, as shown in the agency ' +
  'automations area; or set GATEWAY_BASE_URL=sandbox to run against the built-in sandbox and its sample ' +
  'clients on purpose. `npm run demo` needs neither.';

/**
 * The composition root: makes each part from the config when a role first uses it (runtime-core.ts) and starts
 * the roles that ROLE names (runtime-roles.ts). main.ts, the demo and the end-to-end tests all start the bot
 * through here, so they run the same thing.
 */
export async function startRuntime(
  config: Config,
  logger: AppLogger,
  options: RuntimeOptions = {},
): Promise<Runtime> {
  const botToken = requireStartSettings(config);
  // Without Redis nothing works: a person is told so in one line at start, instead of a flood of retries.
  const redis = createRedis(config.redis);
  const redisOutage = new RedisOutageLog(logger, config.redis.url);
  await redisReadyAtStart(redis, config.redis.url, REDIS_START_WAIT_MS).catch((e) => {
    redis.disconnect();
    throw e;
  });
  const gateways = await startGateways(config, logger, redis, options).catch(async (e) => {
    await redis.quit().catch(() => redis.disconnect());
    throw e;
  });
  redisOutage.watch(redis);
  const { sandbox, ...clients } = gateways;
  const foundation: Foundation = { config, logger, options, botToken, redis, redisOutage, ...clients };
  const built = buildServices(foundation);
  const started = await startRoles(foundation, built);
  return {
    services: built.services,
    bot: started.bot,
    port: started.port,
    workers: started.workers,
    digestWorkers: started.digestWorkers,
    scheduler: started.scheduler,
    sandbox,
    made: built.made,
    stop: (timeoutMs = 10_000) => stopRuntime(foundation, built, started, sandbox, timeoutMs),
  };
}

/** The settings start cannot go without: the bot token, and a gateway chosen (its key with it). */
function requireStartSettings(config: Config): string {
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
  return botToken;
}

/**
 * The gateway clients (the people's and the assistants'), on the built-in sandbox when it is chosen, once the
 * guarded action names are confirmed against the gateway's own list.
 */
async function startGateways(config: Config, logger: AppLogger, redis: Redis, options: RuntimeOptions) {
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
  const metrics = new Metrics();
  const readGates = gatewayReadGates(redis, config.redis.prefix, config.gateway);
  const gatewayOptions = {
    baseUrl: gatewayUrl,
    apiKey,
    logger: logger.child({ part: 'gateway' }),
    actionTimeoutMs: config.gateway.actionTimeoutMs,
    readTimeoutMs: config.gateway.readTimeoutMs,
    readGate: readGates.people,
    observer: metrics.gatewayObserver(),
    ...(options.gatewayRetry ? { retry: options.gatewayRetry } : {}),
  };
  const gateway = new GatewayClient(gatewayOptions);
  const { assistantGateway, assistantReads } = assistantGatewayOf(
    { ...gatewayOptions, readGate: readGates.assistants },
    config.mcp.reads,
  );
  await confirmGuardedNames(config.guardedActions, () => gateway.discover(), logger).catch(async (e) => {
    await Promise.allSettled([gateway.close(), assistantGateway.close(), sandbox?.close()]);
    throw e;
  });
  return { sandbox, metrics, gateway, assistantGateway, assistantReads };
}
