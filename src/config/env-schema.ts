import { z } from 'zod';
import { ACTION_NAME, guardedNames } from '../actions/guarded.js';
import {
  count,
  duration,
  hasHashTag,
  hostList,
  idList,
  isSafeGatewayUrl,
  lowerCaseList,
  optionalText,
  parseRate,
  port,
  rate,
  rateVariable,
} from './parse.js';

/** Every variable the bot reads, as one zod schema: defaults, refusals with what to set, and checks across variables. */
export const envSchema = z
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
    TRUST_PROXY: z.coerce
      .number({
        message: 'TRUST_PROXY must be a whole number: how many reverse proxies stand in front of the bot',
      })
      .int('TRUST_PROXY must be a whole number: how many reverse proxies stand in front of the bot')
      .min(0, 'TRUST_PROXY must be 0 (no proxy) or the number of reverse proxies in front of the bot')
      .max(5, 'TRUST_PROXY must be at most 5: the number of reverse proxies in front of the bot, usually 1')
      .default(0),
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
    CHART_RENDERS: rateVariable('CHART_RENDERS', '20/1h', '20/1h (twenty new charts an hour per person)'),
    CHART_CACHE_MB: count('CHART_CACHE_MB', 256, 'megabytes of rendered charts kept in Redis'),
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
