import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { startHealthServer } from '../../src/http/health-server.js';

describe('health server (Socket Mode, worker and scheduler roles)', () => {
  it('serves its routes, 404s everything else, and refuses a port in use with what to do', async () => {
    const server = await startHealthServer(
      [{ path: '/healthz', method: ['GET'], handler: (_req, res) => res.writeHead(200).end('ok') }],
      0,
    );
    try {
      const ok = await request(`http://127.0.0.1:${server.port}/healthz`);
      expect(ok.statusCode).toBe(200);
      expect(await ok.body.text()).toBe('ok');
      const missing = await request(`http://127.0.0.1:${server.port}/slack/events`, { method: 'POST' });
      expect(missing.statusCode).toBe(404);
      await missing.body.dump();
      await expect(startHealthServer([], server.port)).rejects.toThrow(
        `PORT ${server.port} is in use: give each bot process on this machine its own PORT`,
      );
    } finally {
      await server.close();
    }
  });
});
