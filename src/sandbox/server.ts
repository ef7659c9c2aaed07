import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Row } from '../gateway/types.js';
import { advanceDay } from './advance.js';
import { clientRow, findClient } from './clients.js';
import { DEFAULT_KNOBS, FaultPlan, parseKnobs } from './faults.js';
import { type GatewayDeps, handleGateway } from './gateway.js';
import { sendJson } from './http-util.js';
import { handleIntrospection } from './introspection.js';
import { SandboxStore } from './sample-store.js';
import type { Sandbox, SandboxKnobs, SandboxOptions, SandboxRequestLog } from './sandbox-types.js';

/**
 * The built-in gateway: docs/gateway-api.md §4 served over node:http on loopback with seeded sample data.
 * Nothing is generated at start, so it listens at once even with the large client.
 */

const GATEWAY_PATH = '/gateway';
const DEFAULT_ANCHOR = '2025-06-30T12:00:00.000Z';

/**
 * Where a sandbox that people look at lays its sample data out: it ends at noon the day before `now` (UTC),
 * so its rows read as recent and a day `advance`d is today, never a date long past while the clock says
 * otherwise. Tests keep the fixed default, so every run serves the same rows.
 */
export function recentAnchor(now = Date.now()): string {
  const today = new Date(now);
  today.setUTCHours(0, 0, 0, 0);
  return new Date(today.getTime() - 12 * 3_600_000).toISOString();
}

function listen(server: ReturnType<typeof createServer>, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const seed = options.seed ?? 42;
  const host = options.host ?? '127.0.0.1';
  const anchorMs = Date.parse(options.anchorDate ?? DEFAULT_ANCHOR);
  if (Number.isNaN(anchorMs)) throw new Error(`anchorDate "${options.anchorDate}" is not an ISO date`);
  const baseKnobs: SandboxKnobs = { ...DEFAULT_KNOBS, ...parseKnobs(options.knobs ?? {}) };
  const store = new SandboxStore({ seed, anchorMs, keywordRows: options.largeKeywordRows ?? 100_000 });
  const faults = new FaultPlan(seed, baseKnobs);
  const log: SandboxRequestLog[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let requestSeq = 0;

  const deps: GatewayDeps = {
    store,
    faults,
    log,
    reads: { now: 0, max: 0 },
    seed,
    nextRequestId: () => `req_${(++requestSeq).toString(36).padStart(6, '0')}`,
    sleep: (ms) =>
      ms <= 0
        ? Promise.resolve()
        : new Promise((resolve) => {
            const timer = setTimeout(() => {
              timers.delete(timer);
              resolve();
            }, ms);
            timers.add(timer);
          }),
  };

  const sandbox: Sandbox & { knobs(): SandboxKnobs } = {
    url: '',
    origin: '',
    port: 0,
    knobs: () => faults.knobs,
    setKnobs: (knobs) => faults.setKnobs(knobs),
    failNext: (fault, match) => faults.failNext(fault, match),
    counts: () => store.counts(),
    requests: () => log.map((entry) => ({ ...entry })),
    readsInFlight: () => ({ ...deps.reads }),
    records: (clientId, resource): Row[] => {
      const client = findClient(clientId);
      if (!client) return [];
      if (resource === 'clients') return [clientRow(client)];
      return store.rows(clientId, resource).map((row) => ({ ...row }));
    },
    insertRows: (clientId, resource, rows) =>
      store.append(clientId, resource, ...rows.map((row) => ({ ...row }))),
    advance: (clientId) => advanceDay(store, seed, anchorMs, clientId),
    reset: () => {
      store.reset();
      faults.reset();
      log.length = 0;
      deps.reads.max = deps.reads.now;
    },
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Held (timeout fault) and keep-alive sockets would keep close() waiting.
        server.closeAllConnections();
      });
    },
  };

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://sandbox.local');
    if (url.pathname.startsWith('/__sandbox/')) return handleIntrospection(sandbox, req, res, url);
    if (url.pathname === GATEWAY_PATH || url.pathname === `${GATEWAY_PATH}/`)
      return handleGateway(deps, req, res, url);
    req.resume();
    sendJson(res, 404, { error: `Nothing here: the gateway answers at ${GATEWAY_PATH}` });
  };

  const server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      sendJson(res, 500, { error: `Sandbox internal error: ${(error as Error).message}` });
    });
  });
  const port = await listen(server, options.port ?? 0, host);
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  Object.assign(sandbox, { port, origin, url: `${origin}${GATEWAY_PATH}` });
  return sandbox;
}
