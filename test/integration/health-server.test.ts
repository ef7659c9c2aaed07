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

  it('matches a route with a :param segment, as Bolt’s receiver does (the sign-in’s /oauth/authorize/:uid)', async () => {
    const server = await startHealthServer(
      [
        {
          path: '/oauth/authorize/:uid',
          method: ['GET'],
          handler: (req, res) => res.writeHead(200).end(req.url),
        },
      ],
      0,
    );
    try {
      const ok = await request(`http://127.0.0.1:${server.port}/oauth/authorize/abc-123?x=1`);
      expect(await ok.body.text()).toBe('/oauth/authorize/abc-123?x=1');
      for (const path of ['/oauth/authorize', '/oauth/authorize/a/b']) {
        const missing = await request(`http://127.0.0.1:${server.port}${path}`);
        expect(missing.statusCode).toBe(404);
        await missing.body.dump();
      }
    } finally {
      await server.close();
    }
  });
});
