import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildReceiverRoutes, type CustomRoute } from '@slack/bolt';

export interface HealthServer {
  port: number;
  close(): Promise<void>;
}

/**
 * `/healthz`, `/readyz` and `/metrics` on their own HTTP server: for Socket Mode (no Slack endpoint) and for
 * the worker and scheduler roles, so every process can be health-checked and scraped the same way.
 */
export async function startHealthServer(routes: CustomRoute[], port: number): Promise<HealthServer> {
  const table = buildReceiverRoutes(routes);
  // Routes with a `:param` segment (the sign-in's `/oauth/authorize/:uid`), matched as Bolt's receiver does.
  const patterns = Object.keys(table)
    .filter((path) => path.includes('/:'))
    .map((path) => ({ path, re: new RegExp(`^${path.replace(/\/:[A-Za-z]+/g, '/[^/]+')}$`) }));
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const route = table[path] ? path : patterns.find((p) => p.re.test(path))?.path;
    const handler = route ? table[route]?.[req.method ?? 'GET'] : undefined;
    if (handler) return handler(req, res);
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new Error(
              `PORT ${port} is in use: give each bot process on this machine its own PORT (0 picks a free one)`,
            )
          : error,
      ),
    );
    server.listen(port, resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
