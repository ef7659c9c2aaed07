import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CustomRoute } from '@slack/bolt';
import { GatewayErrorCode, isGatewayError, publicErrorLine } from '../gateway/errors.js';
import type { Metrics } from '../metrics.js';
import { type Redis, redisErrorKind } from '../redis/connection.js';

export interface HealthChecks {
  redis: Redis;
  /**
   * A key under the bot's prefix that each check writes: a PING is answered by any node, but only the node that
   * owns the prefix's slot, as a primary, with our login, takes the bot's writes (MOVED, READONLY, NOAUTH).
   */
  probeKey: string;
  metrics: Metrics;
  /** Resolves when the gateway's discovery call answers. */
  gatewayReady(): Promise<unknown>;
  /** The web role's: `ok` once Slack has answered auth.test, else why not (readiness only, never /healthz). */
  slackReady?: () => string;
  /** How long one answer about the gateway stands (default 3 s). */
  gatewayCacheMs?: number;
  /** When set, /metrics answers only `Authorization: Bearer <token>` (METRICS_TOKEN). */
  metricsToken?: string | undefined;
}

/** The bearer token compared in constant time (hashed first, so lengths do not leak either). */
function bearerMatches(req: IncomingMessage, token: string): boolean {
  const sent = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? '';
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(sent), digest(token));
}

/** The key the health checks write, in the prefix's slot like every other key of the bot. */
export const healthProbeKey = (prefix: string) => `${prefix}:health`;

/**
 * The gateway's readiness, asked at most once per `ttlMs` whatever the probe rate: /readyz is unauthenticated,
 * and each real check is a discovery call with the agency key. Callers within the window share one answer.
 */
function cachedReadiness(check: () => Promise<unknown>, ttlMs: number): () => Promise<string> {
  let last: { at: number; answer: Promise<string> } | undefined;
  return () => {
    if (last && Date.now() - last.at < ttlMs) return last.answer;
    const answer = within(check(), 5_000).then(
      () => 'ok',
      // Code and time only: a gateway error's message names the gateway's address.
      (error: unknown) =>
        isGatewayError(error) && error.code === GatewayErrorCode.Unauthorized
          ? `refusing the API key (${publicErrorLine(error)}): check GATEWAY_API_KEY`
          : `not answering (${publicErrorLine(error)})`,
    );
    last = { at: Date.now(), answer };
    return answer;
  };
}

function send(res: ServerResponse, status: number, body: unknown, type = 'application/json'): void {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

async function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(Object.assign(new Error(`no answer within ${ms} ms`), { code: 'check_timeout' })),
          ms,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `/healthz`: the process serves and Redis takes the bot's writes. `/readyz`: the gateway's discovery call answers too (a gateway
 * that is down must not stop the bot from telling people so, so only readiness depends on it). `/metrics`: the
 * Prometheus text of this process.
 */
export function healthRoutes(checks: HealthChecks): CustomRoute[] {
  const redisState = async (): Promise<string> => {
    try {
      const reply = await within(checks.redis.set(checks.probeKey, String(Date.now()), 'PX', 60_000), 1_000);
      return reply === 'OK' ? 'ok' : 'not answering';
    } catch (error) {
      const kind = redisErrorKind(error);
      return kind === 'connection' || kind === 'other' ? 'not answering' : `refusing (${kind})`;
    }
  };
  const healthz = async (_req: IncomingMessage, res: ServerResponse) => {
    const redis = await redisState();
    send(res, redis === 'ok' ? 200 : 503, { ok: redis === 'ok', redis });
  };
  const gatewayState = cachedReadiness(checks.gatewayReady, checks.gatewayCacheMs ?? 3_000);
  const readyz = async (_req: IncomingMessage, res: ServerResponse) => {
    const result: Record<string, string> = {};
    result.redis = await redisState();
    result.gateway = await gatewayState();
    if (checks.slackReady) result.slack = checks.slackReady();
    const ok = Object.values(result).every((state) => state === 'ok');
    send(res, ok ? 200 : 503, { ok, ...result });
  };
  const metrics = async (req: IncomingMessage, res: ServerResponse) => {
    if (checks.metricsToken && !bearerMatches(req, checks.metricsToken)) {
      res.setHeader('www-authenticate', 'Bearer');
      return send(res, 401, { error: 'metrics need Authorization: Bearer <METRICS_TOKEN>' });
    }
    send(res, 200, await checks.metrics.render(), checks.metrics.contentType);
  };
  return [
    { path: '/healthz', method: ['GET'], handler: (req, res) => void healthz(req, res) },
    { path: '/readyz', method: ['GET'], handler: (req, res) => void readyz(req, res) },
    { path: '/metrics', method: ['GET'], handler: (req, res) => void metrics(req, res) },
  ];
}
