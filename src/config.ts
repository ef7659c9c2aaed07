import type { z } from 'zod';
import { envSchema } from './config/env-schema.js';
import type { Rate } from './config/parse.js';
import type { RedisTarget } from './redis/connection.js';

export { parseDuration, parseRate } from './config/parse.js';
export type { Rate };

/**
 * The only reader of process.env. Everything is parsed once, validated with zod and frozen;
 * a wrong value fails at start with the variable's name and how to fix it.
 */
export interface Config {
  slack: {
    botToken: string | undefined;
    signingSecret: string | undefined;
    appToken: string | undefined;
    apiUrl: string | undefined;
    /** The worker's pace of new messages in one channel (Slack: about one a second); 0: none. */
    postIntervalMs: number;
    mode: 'http' | 'socket';
  };
  port: number;
  /**
   * Reverse proxies in front of the bot (TRUST_PROXY, as Express's `trust proxy` hop count): a request's address
   * for the per-address limits is the one the outermost of them saw, from X-Forwarded-For; 0: the socket's.
   */
  trustProxy: number;
  gateway: {
    /** Undefined when unset or `sandbox`; `sandbox` tells which (the runtime refuses to guess). */
    baseUrl: string | undefined;
    sandbox: boolean;
    apiKey: string | undefined;
    actionRate: Rate;
    actionTimeoutMs: number;
    /** Whole-request deadline of every GET, retries included. */
    readTimeoutMs: number;
    /** Page reads in flight at most, in this process and (0: no cap) across every process on the Redis. */
    readConcurrency: number;
    fleetReadConcurrency: number;
  };
  /** When set, /metrics answers only `Authorization: Bearer <token>`. */
  metricsToken: string | undefined;
  /**
   * Where Redis is (redis.ts builds the connections): REDIS_URL alone, or the Cluster's seed nodes, or the
   * Sentinels; REDIS_URL's user, password and rediss:// apply in every form.
   */
  redis: RedisTarget & { prefix: string; form: 'single' | 'cluster' | 'sentinel' };
  role: 'web' | 'worker' | 'scheduler' | 'mcp' | 'all';
  admins: readonly string[];
  approvers: readonly string[];
  /** Who may run actions (user ids U…/W…, user-group ids S…); empty: every full member of the home workspace. */
  members: readonly string[];
  /** Actions only the discovery call lists that non-admins may run too (lower case). */
  allowedActions: readonly string[];
  /**
   * Lower-cased; always includes deploy_blog and send_prospect_email. Names the spec lacks are checked against
   * the gateway's discovery call at start (runtime.ts), the first place the bot can learn them.
   */
  guardedActions: readonly string[];
  allowSelfApproval: boolean;
  approvalTtlMs: number;
  digestTz: string;
  /** Scheduled daily and weekly digests run spread over this window after their due time (digests/spread.ts). */
  digestSpreadMs: number;
  /** How long a non-admin waits between two `digest now` requests. */
  digestNowCooldownMs: number;
  sandboxPort: number;
  /** Knobs of the built-in sandbox gateway (`npm run sandbox`, the demo): fault rates are fractions 0–1. */
  sandbox: {
    seed: number;
    latencyMs: number;
    errorRate: number;
    timeoutRate: number;
    dropRate: number;
    statusErrorRate: number;
  };
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  /** The assistant-tool server (`POST /mcp`). */
  mcp: {
    /** The bot's public address (PUBLIC_URL), without a trailing slash; unset: loopback on PORT. */
    publicUrl: string | undefined;
    /** Host and Origin names a request may carry (lower case): MCP_ALLOWED_HOSTS, or loopback and PUBLIC_URL's. */
    allowedHosts: readonly string[];
    /** JSON-RPC messages per token, and per person across their tokens, per window. */
    rate: Rate;
    tokenTtlMs: number;
    /** Assistant requests one process holds (running or waiting); one more is answered 503. */
    maxInFlight: number;
    /** The assistant tools' gateway reads: in flight per process and per person, pages per tool call. */
    reads: { perProcess: number; perPerson: number; pagesPerCall: number };
  };
  /** Assistant sign-in (oauth/): Sign in with Slack for the person; undefined without the app's OAuth client. */
  signIn:
    | {
        clientId: string;
        clientSecret: string;
        /** Slack's web host (SLACK_WEB_URL), without a trailing slash: the authorize page, its keys, the issuer. */
        webUrl: string;
        /** Hosts (host or host:port) whose client metadata documents may be fetched from a private address. */
        metadataAllowedHosts: readonly string[];
      }
    | undefined;
  /** Assistant tokens minted in Slack: how many a person may hold, and how fast they may mint. */
  assistantTokens: { maxActive: number; mintRate: Rate };
  /** Charts newly drawn per person (a cached one is free), and the bytes of rendered charts kept in Redis. */
  charts: { renders: Rate; cacheBytes: number };
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly code = 'config_invalid';
  constructor(readonly problems: string[]) {
    super(
      `Configuration is not valid:\n${problems.map((p) => `  - ${p}`).join('\n')}\nSee .env.sample for every variable.`,
    );
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/**
 * GATEWAY_BASE_URL=sandbox starts a sandbox inside the process, with sample data of its own: roles run as
 * separate processes (compose's web, workers, scheduler) would each talk to another one, and a job would not
 * find the post the web role showed. So it is for one process running every role.
 */
function sandboxApart(role: string): string {
  return (
    `GATEWAY_BASE_URL=sandbox runs a sandbox gateway inside this one process, and ROLE=${role} means the other ` +
    'roles run in processes of their own, each with a sandbox and sample data of its own. Try the sandbox with ' +
    'ROLE=all (`npm run demo`, or one `npm start`; with compose: `docker compose run --rm -e ROLE=all -p ' +
    '127.0.0.1:3000:3000 web`), or set GATEWAY_BASE_URL and GATEWAY_API_KEY to your gateway'
  );
}

/** The environment checked against the schema, every problem named at once (ConfigError). */
function parseEnv(env: NodeJS.ProcessEnv, sandbox: boolean): Env {
  const parsed = envSchema.safeParse(sandbox ? { ...env, GATEWAY_BASE_URL: undefined } : env);
  if (parsed.success) return parsed.data;
  throw new ConfigError(
    parsed.error.issues.map((issue) => {
      const name = String(issue.path[0] ?? '');
      return issue.message.startsWith(name) ? issue.message : `${name}: ${issue.message}`;
    }),
  );
}

function slackConfig(e: Env): Config['slack'] {
  return {
    botToken: e.SLACK_BOT_TOKEN,
    signingSecret: e.SLACK_SIGNING_SECRET,
    appToken: e.SLACK_APP_TOKEN,
    apiUrl: e.SLACK_API_URL,
    postIntervalMs: e.SLACK_POST_INTERVAL,
    mode: e.SLACK_APP_TOKEN ? 'socket' : 'http',
  };
}

/** Parses an environment (process.env by default) into a frozen Config, or throws ConfigError. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // GATEWAY_BASE_URL=sandbox is the explicit choice of the built-in sandbox gateway (its sample clients).
  const sandbox = env.GATEWAY_BASE_URL?.trim() === 'sandbox';
  const e = parseEnv(env, sandbox);
  if (sandbox && e.ROLE !== 'all') throw new ConfigError([sandboxApart(e.ROLE)]);
  return deepFreeze<Config>({
    slack: slackConfig(e),
    port: e.PORT,
    trustProxy: e.TRUST_PROXY,
    gateway: gatewayConfig(e, sandbox),
    metricsToken: e.METRICS_TOKEN,
    redis: redisConfig(e),
    role: e.ROLE,
    admins: e.GATEWAY_ADMINS,
    approvers: e.GATEWAY_APPROVERS.length ? e.GATEWAY_APPROVERS : e.GATEWAY_ADMINS,
    members: e.GATEWAY_MEMBERS,
    allowedActions: e.GATEWAY_ALLOWED_ACTIONS,
    guardedActions: e.GATEWAY_GUARDED_ACTIONS,
    allowSelfApproval: e.GATEWAY_ALLOW_SELF_APPROVAL,
    approvalTtlMs: e.GATEWAY_APPROVAL_TTL,
    digestTz: e.DIGEST_TZ,
    digestNowCooldownMs: e.DIGEST_NOW_COOLDOWN,
    digestSpreadMs: e.DIGEST_SPREAD,
    sandboxPort: e.SANDBOX_PORT,
    sandbox: {
      seed: e.SANDBOX_SEED,
      latencyMs: e.SANDBOX_LATENCY_MS,
      errorRate: e.SANDBOX_ERROR_RATE,
      timeoutRate: e.SANDBOX_TIMEOUT_RATE,
      dropRate: e.SANDBOX_DROP_RATE,
      statusErrorRate: e.SANDBOX_STATUS_ERROR_RATE,
    },
    logLevel: e.LOG_LEVEL,
    mcp: mcpConfig(e),
    signIn:
      e.SLACK_CLIENT_ID && e.SLACK_CLIENT_SECRET
        ? {
            clientId: e.SLACK_CLIENT_ID,
            clientSecret: e.SLACK_CLIENT_SECRET,
            webUrl: e.SLACK_WEB_URL.replace(/\/+$/, ''),
            metadataAllowedHosts: e.OAUTH_METADATA_ALLOWED_HOSTS,
          }
        : undefined,
    assistantTokens: { maxActive: e.MCP_TOKENS_PER_PERSON, mintRate: e.MCP_MINT_RATE },
    charts: { renders: e.CHART_RENDERS, cacheBytes: e.CHART_CACHE_MB * 1_048_576 },
  });
}

type Env = z.infer<typeof envSchema>;

function redisConfig(e: Env): Config['redis'] {
  return {
    url: e.REDIS_URL,
    prefix: e.REDIS_PREFIX,
    form: e.REDIS_CLUSTER_NODES.length ? 'cluster' : e.REDIS_SENTINELS.length ? 'sentinel' : 'single',
    clusterNodes: e.REDIS_CLUSTER_NODES,
    sentinels: e.REDIS_SENTINELS,
    sentinelName: e.REDIS_SENTINEL_NAME,
    sentinelPassword: e.REDIS_SENTINEL_PASSWORD,
  };
}

function mcpConfig(e: Env): Config['mcp'] {
  return {
    publicUrl: e.PUBLIC_URL?.replace(/\/+$/, ''),
    allowedHosts: e.MCP_ALLOWED_HOSTS.length
      ? e.MCP_ALLOWED_HOSTS
      : [
          'localhost',
          '127.0.0.1',
          '[::1]',
          ...(e.PUBLIC_URL ? [new URL(e.PUBLIC_URL).hostname.toLowerCase()] : []),
        ],
    rate: e.MCP_RATE,
    tokenTtlMs: e.MCP_TOKEN_TTL,
    maxInFlight: e.MCP_MAX_IN_FLIGHT,
    reads: {
      perProcess: e.MCP_GATEWAY_READS,
      perPerson: Math.min(e.MCP_GATEWAY_READS_PER_PERSON, e.MCP_GATEWAY_READS),
      pagesPerCall: e.MCP_CALL_PAGES,
    },
  };
}

function gatewayConfig(e: Env, sandbox: boolean): Config['gateway'] {
  return {
    baseUrl: e.GATEWAY_BASE_URL,
    sandbox,
    apiKey: e.GATEWAY_API_KEY,
    actionRate: e.GATEWAY_ACTION_RATE,
    actionTimeoutMs: e.GATEWAY_ACTION_TIMEOUT,
    readTimeoutMs: e.GATEWAY_READ_TIMEOUT,
    readConcurrency: e.GATEWAY_READ_CONCURRENCY,
    fleetReadConcurrency: e.GATEWAY_FLEET_READ_CONCURRENCY,
  };
}
