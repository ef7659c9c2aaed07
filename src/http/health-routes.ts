import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CustomRoute } from '@slack/bolt';
import type { Redis } from 'ioredis';
import type { Metrics } from '../metrics.js';

export interface HealthChecks {
  redis: Redis;
  metrics: Metrics;
  /** Resolves when the gateway's discovery call answers. */
  gatewayReady(): Promise<unknown>;
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
        timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `/healthz`: the process serves and Redis answers. `/readyz`: the gateway's discovery call answers too (a gateway
 * that is down must not stop the bot from telling people so, so only readiness depends on it). `/metrics`: the
 * Prometheus text of this process.
 */
export function healthRoutes(checks: HealthChecks): CustomRoute[] {
  const redisOk = async () => (await within(checks.redis.ping(), 1_000)) === 'PONG';
  const healthz = async (_req: IncomingMessage, res: ServerResponse) => {
    try {
      if (await redisOk()) return send(res, 200, { ok: true, redis: 'ok' });
    } catch {
      // fall through: Redis is not answering
    }
    send(res, 503, { ok: false, redis: 'not answering' });
  };
  const readyz = async (_req: IncomingMessage, res: ServerResponse) => {
    const result: Record<string, string> = {};
    let ok = true;
    try {
      result.redis = (await redisOk()) ? 'ok' : 'not answering';
    } catch {
      result.redis = 'not answering';
    }
    try {
      await within(checks.gatewayReady(), 5_000);
      result.gateway = 'ok';
    } catch (error) {
      result.gateway = error instanceof Error ? error.message : 'not answering';
    }
    ok = result.redis === 'ok' && result.gateway === 'ok';
    send(res, ok ? 200 : 503, { ok, ...result });
  };
  const metrics = async (_req: IncomingMessage, res: ServerResponse) => {
    send(res, 200, await checks.metrics.render(), checks.metrics.contentType);
  };
  return [
    { path: '/healthz', method: ['GET'], handler: (req, res) => void healthz(req, res) },
    { path: '/readyz', method: ['GET'], handler: (req, res) => void readyz(req, res) },
    { path: '/metrics', method: ['GET'], handler: (req, res) => void metrics(req, res) },
  ];
}
