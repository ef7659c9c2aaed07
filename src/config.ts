import { z } from 'zod';
import { ACTION_NAME, guardedNames } from './actions/guarded.js';
import type { HostPort, RedisTarget } from './redis/connection.js';

/**
 * The only reader of process.env. Everything is parsed once, validated with zod and frozen;
 * a wrong value fails at start with the variable's name and how to fix it.
 */

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * Parses `250ms`, `30s`, `5m`, `24h`, `7d`. Returns milliseconds. A bare number is no duration: `TTL=1` read as
 * one second (or one hour, or one day) is a guess that fails silently, so the unit is always written.
 */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)$/.exec(text.trim());
  if (!match) return undefined;
  const ms = Number(match[1]) * (DURATION_UNITS[match[2] ?? ''] ?? Number.NaN);
  return ms > 0 ? Math.round(ms) : undefined;
}

/** `1` → `1s, 1m or 1h`: the fix-it of a duration written without its unit. */
const withUnits = (n: string) => `${n}s, ${n}m or ${n}h`;
const isBareNumber = (text: string) => /^\d+(?:\.\d+)?$/.test(text.trim());

export interface Rate {
  max: number;
  windowMs: number;
}

/** Parses `10/60s` (ten per sixty seconds), `20/1s`, `100/m`. */
export function parseRate(text: string): Rate | undefined {
  const match = /^(\d+)\s*\/\s*(\d*(?:\.\d+)?\s*(?:ms|s|m|h|d)?)$/.exec(text.trim());
  if (!match) return undefined;
  const max = Number(match[1]);
  const windowText = match[2] ?? '';
  const windowMs = parseDuration(/^\d/.test(windowText) ? windowText : `1${windowText || 's'}`);
  if (!max || !windowMs) return undefined;
  return { max, windowMs };
}

/** A rate variable (`3/60s`), refused with how to write it. */
const rateVariable = (name: string, fallback: string, meaning: string) =>
  z
    .string()
    .default(fallback)
    .transform((v, ctx) => {
      const rate = parseRate(v);
      if (rate) return rate;
      ctx.addIssue({ code: 'custom', message: `${name}: "${v}" is not a rate; write it as ${meaning}` });
      return z.NEVER;
    });

/**
 * The key goes in every request's Authorization header, so it may travel only over TLS, or over plain HTTP that
 * never leaves the machine (the built-in sandbox, a local tunnel). The same holds for SLACK_API_URL: the bot
 * token travels with every Slack call.
 */
export function isSafeGatewayUrl(text: string): boolean {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  if (url.protocol === 'https:') return true;
  if (url.protocol !== 'http:') return false;
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

const idList = (name: string) =>
  z
    .string()
    .optional()
    .transform((v) => (v ?? '').split(/[\s,]+/).filter(Boolean))
    .pipe(
      z.array(
        z
          .string()
          .regex(
            /^[UWS][A-Z0-9]+$/,
            `${name}: Slack ids look like U0123ABCD (users) or S0123ABCD (user groups)`,
          ),
      ),
    );

/** Words separated by commas or spaces, in lower case, each matching `pattern` (blank means none). */
const lowerCaseList = (pattern: RegExp, message: string) =>
  z
    .string()
    .optional()
    .transform((v) =>
      (v ?? '')
        .split(/[\s,]+/)
        .filter(Boolean)
        .map((word) => word.toLowerCase()),
    )
    .pipe(z.array(z.string().regex(pattern, message)));

/** `allowZero`: `0s` (or `0`) turns the thing off. */
const duration = (name: string, fallback: string, allowZero = false) =>
  z
    .string()
    .default(fallback)
    .transform((v, ctx) => {
      if (allowZero && /^0+(?:\.0+)?\s*(?:ms|s|m|h|d)?$/.test(v.trim())) return 0;
      const ms = parseDuration(v);
      if (ms === undefined) {
        ctx.addIssue({
          code: 'custom',
          message: isBareNumber(v)
            ? `${name}: "${v}" has no unit; write ${withUnits(v.trim())} (s seconds, m minutes, h hours, d days)`
            : `${name}: "${v}" is not a duration; write it as 30s, 5m or 24h`,
        });
        return z.NEVER;
      }
      return ms;
    });

const port = (name: string, fallback: number, allowZero = false) =>
  z.coerce
    .number({ message: `${name} must be a port number` })
    .int(`${name} must be a whole number`)
    .min(allowZero ? 0 : 1, `${name} must be between ${allowZero ? 0 : 1} and 65535`)
    .max(65535, `${name} must be between ${allowZero ? 0 : 1} and 65535`)
    .default(fallback);

/** A whole number of something, `what` said in the refusal; at least `min` (1 unless given: 0 turns a cap off). */
const count = (name: string, fallback: number, what: string, min = 1) =>
  z.coerce
    .number({ message: `${name} must be a whole number (${what})` })
    .int(`${name} must be a whole number (${what})`)
    .min(min, `${name} must be at least ${min} (${what})`)
    .default(fallback);

const rate = (name: string) =>
  z.coerce
    .number({ message: `${name} must be a fraction from 0 to 1` })
    .min(0, `${name} must be a fraction from 0 to 1`)
    .max(1, `${name} must be a fraction from 0 to 1`)
    .default(0);

/** True when the prefix carries a Redis Cluster hash tag: its first `{` closes on a non-empty `}`. */
export function hasHashTag(prefix: string): boolean {
  const open = prefix.indexOf('{');
  return open >= 0 && prefix.indexOf('}', open + 1) > open + 1;
}

/** `host:port,host:port` (an IPv6 host in brackets: `[::1]:6379`). */
const hostList = (name: string, example: string) =>
  z
    .string()
    .optional()
    .transform((v, ctx): HostPort[] => {
      const nodes: HostPort[] = [];
      for (const item of (v ?? '').split(/[\s,]+/).filter(Boolean)) {
        const match = /^(\[[^\]]+\]|[^:\s]+):(\d{1,5})$/.exec(item);
        const port = Number(match?.[2]);
        if (!match?.[1] || !(port >= 1 && port <= 65535)) {
          ctx.addIssue({ code: 'custom', message: `${name}: "${item}" is not host:port; write ${example}` });
          return z.NEVER;
        }
        nodes.push({ host: match[1].replace(/^\[|\]$/g, ''), port });
      }
      return nodes;
    });

const optionalText = z
  .string()
  .optional()
  .transform((v) => (v?.trim() ? v.trim() : undefined));

const envSchema = z
  .object({
    SLACK_BOT_TOKEN: optionalText,
    SLACK_SIGNING_SECRET: optionalText,
    SLACK_APP_TOKEN: optionalText.refine((v) => v === undefined || v.startsWith('xapp-'), {
      message: 'SLACK_APP_TOKEN: an app-level token starts with xapp- (Basic Information → App-Level Tokens)',
    }),
    SLACK_API_URL: optionalText.pipe(
      z
        .url({ message: 'SLACK_API_URL must be a URL such as https://slack.com/api/' })
        .refine((v) => isSafeGatewayUrl(v), {
          message:
            'SLACK_API_URL must start with https:// (the bot token travels with every call); plain http:// is allowed only on this machine (localhost, 127.0.0.1, ::1)',
        })
        .optional(),
    ),
    PORT: port('PORT', 3000, true),
    GATEWAY_BASE_URL: optionalText.pipe(
      z
        .url({ message: 'GATEWAY_BASE_URL must be the gateway address shown in the agency automations area' })
        .refine((v) => isSafeGatewayUrl(v), {
          message:
            'GATEWAY_BASE_URL must start with https:// (the API key travels with every request); plain http:// is allowed only on this machine (localhost, 127.0.0.1, ::1)',
        })
        .optional(),
    ),
    GATEWAY_API_KEY: optionalText,
    REDIS_URL: z
      .string()
      .default('redis://127.0.0.1:6379')
      .refine((v) => /^rediss?:\/\//.test(v), { message: 'REDIS_URL must look like redis://host:6379' }),
    REDIS_PREFIX: z
      .string()
      .default('gw')
      .refine((v) => /^[A-Za-z0-9_:{}.-]+$/.test(v), {
        message: 'REDIS_PREFIX may hold letters, digits and _ : { } . - only (use {tag} for Redis Cluster)',
      }),
    REDIS_CLUSTER_NODES: hostList('REDIS_CLUSTER_NODES', 'redis-1:6379,redis-2:6379,redis-3:6379'),
    REDIS_SENTINELS: hostList('REDIS_SENTINELS', 'sentinel-1:26379,sentinel-2:26379,sentinel-3:26379'),
    REDIS_SENTINEL_NAME: z
      .string()
      .default('mymaster')
      .refine((v) => /^[A-Za-z0-9_.-]+$/.test(v), {
        message:
          "REDIS_SENTINEL_NAME is the primary's name in the Sentinels' configuration, such as mymaster",
      }),
    REDIS_SENTINEL_PASSWORD: optionalText,
    ROLE: z
      .enum(['web', 'worker', 'scheduler', 'mcp', 'all'], {
        message: 'ROLE must be one of web, worker, scheduler, mcp, all',
      })
      .default('all'),
    // Admin checks are by user id only, so a user group here would silently make nobody an admin.
    GATEWAY_ADMINS: idList('GATEWAY_ADMINS').refine((ids) => !ids.some((id) => id.startsWith('S')), {
      message:
        'GATEWAY_ADMINS: takes user ids only (U0123ABCD), not user groups (S…): name the admins one by one; a group can go in GATEWAY_APPROVERS or GATEWAY_MEMBERS',
    }),
    GATEWAY_APPROVERS: idList('GATEWAY_APPROVERS'),
    GATEWAY_MEMBERS: idList('GATEWAY_MEMBERS'),
    GATEWAY_ALLOWED_ACTIONS: lowerCaseList(
      /^[a-z][a-z0-9_]*$/,
      'GATEWAY_ALLOWED_ACTIONS: action names look like generate_faq',
    ),
    // Only adds to the actions that are always guarded (see actions/guarded.ts); blank means unset.
    GATEWAY_GUARDED_ACTIONS: z
      .string()
      .optional()
      .transform((v) => guardedNames((v ?? '').split(/[\s,]+/)))
      .pipe(
        z.array(
          z
            .string()
            .regex(
              ACTION_NAME,
              'GATEWAY_GUARDED_ACTIONS: action names look like deploy_blog (letters, digits and _, comma-separated)',
            ),
        ),
      ),
    GATEWAY_ALLOW_SELF_APPROVAL: z
      .enum(['true', 'false', '1', '0', 'yes', 'no'], {
        message: 'GATEWAY_ALLOW_SELF_APPROVAL must be true or false',
      })
      .default('false')
      .transform((v) => v === 'true' || v === '1' || v === 'yes'),
    GATEWAY_APPROVAL_TTL: duration('GATEWAY_APPROVAL_TTL', '24h'),
    GATEWAY_ACTION_RATE: z
      .string()
      .default('10/60s')
      .transform((v, ctx) => {
        const rate = parseRate(v);
        if (!rate) {
          ctx.addIssue({
            code: 'custom',
            message: `GATEWAY_ACTION_RATE: "${v}" is not a rate; write it as 10/60s (ten POSTs per sixty seconds)`,
          });
          return z.NEVER;
        }
        return rate;
      }),
    GATEWAY_ACTION_TIMEOUT: duration('GATEWAY_ACTION_TIMEOUT', '30s'),
    GATEWAY_READ_TIMEOUT: duration('GATEWAY_READ_TIMEOUT', '20s'),
    SLACK_POST_INTERVAL: duration('SLACK_POST_INTERVAL', '1s', true),
    GATEWAY_READ_CONCURRENCY: count('GATEWAY_READ_CONCURRENCY', 8, 'gateway reads in flight per process'),
    GATEWAY_FLEET_READ_CONCURRENCY: count(
      'GATEWAY_FLEET_READ_CONCURRENCY',
      16,
      'gateway reads in flight across every process; 0 for no fleet cap',
      0,
    ),
    METRICS_TOKEN: optionalText.refine((v) => v === undefined || v.length >= 16, {
      message: 'METRICS_TOKEN must be at least 16 characters (it is the only thing guarding /metrics)',
    }),
    DIGEST_TZ: z
      .string()
      .default('UTC')
      .refine(
        (tz) => {
          try {
            new Intl.DateTimeFormat('en-US', { timeZone: tz });
            return true;
          } catch {
            return false;
          }
        },
        { message: 'DIGEST_TZ must be an IANA time zone such as UTC or Europe/Berlin' },
      ),
    DIGEST_NOW_COOLDOWN: duration('DIGEST_NOW_COOLDOWN', '5m'),
    DIGEST_SPREAD: duration('DIGEST_SPREAD', '5m', true),
    SANDBOX_PORT: port('SANDBOX_PORT', 4010, true),
    SANDBOX_SEED: z.coerce.number({ message: 'SANDBOX_SEED must be a number' }).int().default(42),
    SANDBOX_LATENCY_MS: z.coerce
      .number({ message: 'SANDBOX_LATENCY_MS must be a number of milliseconds' })
      .min(0)
      .default(0),
    SANDBOX_ERROR_RATE: rate('SANDBOX_ERROR_RATE'),
    SANDBOX_TIMEOUT_RATE: rate('SANDBOX_TIMEOUT_RATE'),
    SANDBOX_DROP_RATE: rate('SANDBOX_DROP_RATE'),
    SANDBOX_STATUS_ERROR_RATE: rate('SANDBOX_STATUS_ERROR_RATE'),
    PUBLIC_URL: optionalText.pipe(
      z
        .url({
          message: 'PUBLIC_URL must be the bot’s public address, such as https://gateway-bot.example.com',
        })
        .refine((v) => isSafeGatewayUrl(v), {
          message:
            'PUBLIC_URL must start with https:// (assistant tokens travel to it); plain http:// is allowed only on this machine',
        })
        .optional(),
    ),
    MCP_ALLOWED_HOSTS: lowerCaseList(
      /^(\[[0-9a-f:]+\]|[a-z0-9.-]+)$/,
      'MCP_ALLOWED_HOSTS: host names without scheme or port, such as gateway-bot.example.com',
    ),
    MCP_RATE: z
      .string()
      .default('60/60s')
      .transform((v, ctx) => {
        const rate = parseRate(v);
        if (!rate) {
          ctx.addIssue({
            code: 'custom',
            message: `MCP_RATE: "${v}" is not a rate; write it as 60/60s (sixty messages a minute per token and per person)`,
          });
          return z.NEVER;
        }
        return rate;
      }),
    MCP_TOKEN_TTL: duration('MCP_TOKEN_TTL', '90d'),
    MCP_MAX_IN_FLIGHT: count('MCP_MAX_IN_FLIGHT', 32, 'assistant requests one process holds at once'),
    MCP_GATEWAY_READS: count('MCP_GATEWAY_READS', 4, 'assistant gateway reads in flight per process'),
    MCP_GATEWAY_READS_PER_PERSON: count('MCP_GATEWAY_READS_PER_PERSON', 2, 'of those, for one person'),
    MCP_CALL_PAGES: count('MCP_CALL_PAGES', 20, 'gateway pages one tool call may read'),
    SLACK_CLIENT_ID: optionalText,
    SLACK_CLIENT_SECRET: optionalText,
    SLACK_WEB_URL: z
      .string()
      .default('https://slack.com')
      .pipe(
        z
          .url({ message: 'SLACK_WEB_URL must be a URL such as https://slack.com' })
          .refine((v) => isSafeGatewayUrl(v), {
            message:
              'SLACK_WEB_URL must start with https:// (sign-in codes travel to it); plain http:// only on this machine',
          }),
      ),
    OAUTH_METADATA_ALLOWED_HOSTS: lowerCaseList(
      /^(\[[0-9a-f:]+\]|[a-z0-9.-]+)(:\d{1,5})?$/,
      'OAUTH_METADATA_ALLOWED_HOSTS: host names or host:port, such as mcp-client.intranet.example:8443',
    ),
    MCP_TOKENS_PER_PERSON: z.coerce
      .number({ message: 'MCP_TOKENS_PER_PERSON must be a whole number, such as 10' })
      .int({ message: 'MCP_TOKENS_PER_PERSON must be a whole number, such as 10' })
      .min(1, { message: 'MCP_TOKENS_PER_PERSON must be at least 1' })
      .default(10),
    MCP_MINT_RATE: rateVariable('MCP_MINT_RATE', '3/60s', '3/60s (three tokens a minute per person)'),
    LOG_LEVEL: z
      .enum(['debug', 'info', 'warn', 'error'], { message: 'LOG_LEVEL must be debug, info, warn or error' })
      .default('info'),
  })
  .superRefine((env, ctx) => {
    if (env.REDIS_CLUSTER_NODES.length && env.REDIS_SENTINELS.length) {
      ctx.addIssue({
        code: 'custom',
        path: ['REDIS_SENTINELS'],
        message:
          'REDIS_SENTINELS and REDIS_CLUSTER_NODES are both set: a Redis Cluster has no Sentinels; keep the one your Redis is',
      });
    }
    if (env.REDIS_CLUSTER_NODES.length && !hasHashTag(env.REDIS_PREFIX)) {
      ctx.addIssue({
        code: 'custom',
        path: ['REDIS_PREFIX'],
        message: `REDIS_PREFIX "${env.REDIS_PREFIX}" has no {hash tag}: on a Redis Cluster every key of the bot and its queues must share one slot, so wrap the prefix in braces (REDIS_PREFIX={${env.REDIS_PREFIX.replace(/[{}]/g, '')}})`,
      });
    }
    if (Boolean(env.SLACK_CLIENT_ID) !== Boolean(env.SLACK_CLIENT_SECRET)) {
      ctx.addIssue({
        code: 'custom',
        path: [env.SLACK_CLIENT_ID ? 'SLACK_CLIENT_SECRET' : 'SLACK_CLIENT_ID'],
        message:
          'SLACK_CLIENT_ID and SLACK_CLIENT_SECRET go together (Basic Information → App Credentials): set both for assistant sign-in, or neither',
      });
    }
    if (env.SLACK_BOT_TOKEN && !env.SLACK_APP_TOKEN && !env.SLACK_SIGNING_SECRET) {
      ctx.addIssue({
        code: 'custom',
        path: ['SLACK_SIGNING_SECRET'],
        message:
          'SLACK_SIGNING_SECRET is required in HTTP mode (Basic Information → Signing Secret); or set SLACK_APP_TOKEN for Socket Mode',
      });
    }
  });

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

/** Parses an environment (process.env by default) into a frozen Config, or throws ConfigError. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // GATEWAY_BASE_URL=sandbox is the explicit choice of the built-in sandbox gateway (its sample clients).
  const sandbox = env.GATEWAY_BASE_URL?.trim() === 'sandbox';
  const parsed = envSchema.safeParse(sandbox ? { ...env, GATEWAY_BASE_URL: undefined } : env);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => {
        const name = String(issue.path[0] ?? '');
        return issue.message.startsWith(name) ? issue.message : `${name}: ${issue.message}`;
      }),
    );
  }
  const e = parsed.data;
  if (sandbox && e.ROLE !== 'all') throw new ConfigError([sandboxApart(e.ROLE)]);
  return deepFreeze<Config>({
    slack: {
      botToken: e.SLACK_BOT_TOKEN,
      signingSecret: e.SLACK_SIGNING_SECRET,
      appToken: e.SLACK_APP_TOKEN,
      apiUrl: e.SLACK_API_URL,
      postIntervalMs: e.SLACK_POST_INTERVAL,
      mode: e.SLACK_APP_TOKEN ? 'socket' : 'http',
    },
    port: e.PORT,
    gateway: {
      baseUrl: e.GATEWAY_BASE_URL,
      sandbox,
      apiKey: e.GATEWAY_API_KEY,
      actionRate: e.GATEWAY_ACTION_RATE,
      actionTimeoutMs: e.GATEWAY_ACTION_TIMEOUT,
      readTimeoutMs: e.GATEWAY_READ_TIMEOUT,
      readConcurrency: e.GATEWAY_READ_CONCURRENCY,
      fleetReadConcurrency: e.GATEWAY_FLEET_READ_CONCURRENCY,
    },
    metricsToken: e.METRICS_TOKEN,
    redis: {
      url: e.REDIS_URL,
      prefix: e.REDIS_PREFIX,
      form: e.REDIS_CLUSTER_NODES.length ? 'cluster' : e.REDIS_SENTINELS.length ? 'sentinel' : 'single',
      clusterNodes: e.REDIS_CLUSTER_NODES,
      sentinels: e.REDIS_SENTINELS,
      sentinelName: e.REDIS_SENTINEL_NAME,
      sentinelPassword: e.REDIS_SENTINEL_PASSWORD,
    },
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
    mcp: {
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
    },
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
  });
}
