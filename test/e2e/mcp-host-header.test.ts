/**
 * The Host header and what the bot says about itself without PUBLIC_URL: the assistant tools' 401 challenge,
 * their protected-resource metadata and the authorization server's issuer are built from the Host's parsed name
 * and port, never from the header as sent; a Host with a path, a query, a fragment, a quote or user info is
 * refused. The metadata answers browsers from any origin (CORS) and their preflight.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, signInEnv, startHarness } from '../helpers/bot-harness.js';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

describe('the Host header never writes into URLs or challenges', () => {
  let h: Harness;
  let port: number;

  /** node:http sends any Host, as a client or a proxy could; fetch would not. */
  const raw = (path: string, host: string, method = 'POST', extra: Record<string, string> = {}) =>
    new Promise<Raw>((resolve, reject) => {
      const body = method === 'POST' ? JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) : '';
      const req = request({
        host: '127.0.0.1',
        port,
        path,
        method,
        headers: {
          host,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...extra,
        },
      });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (c) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      });
      req.on('error', reject);
      req.end(body);
    });

  beforeAll(async () => {
    h = await startHarness('e2e-mcp-host', (slack) => signInEnv(slack));
    port = h.runtime.port as number;
  });

  afterAll(async () => {
    await h?.close();
  });

  it('builds the 401 challenge from the parsed host and port', async () => {
    const ok = await raw('/mcp', `LocalHost:${port}`);
    expect(ok.status).toBe(401);
    expect(ok.headers['www-authenticate']).toBe(
      `Bearer resource_metadata="http://localhost:${port}/.well-known/oauth-protected-resource/mcp"`,
    );
  });

  it.each([
    ['a quote and a path', 'localhost/" error="x'],
    ['a path', 'localhost/evil'],
    ['a fragment', 'localhost#x'],
    ['a query', 'localhost?x=1'],
    ['user info', 'evil.example@localhost'],
    ['a quote', 'localhost"'],
  ])('refuses a Host with %s on /mcp, the metadata and the issuer', async (_what, host) => {
    const mcp = await raw('/mcp', host);
    expect(mcp.status).toBeGreaterThanOrEqual(400);
    expect(mcp.status).not.toBe(401);
    expect(mcp.headers['www-authenticate']).toBeUndefined();
    for (const path of [
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-authorization-server',
    ]) {
      const meta = await raw(path, host, 'GET');
      expect(meta.status).toBe(403);
      expect(meta.body).not.toContain('evil');
      expect(meta.body).not.toContain('error=');
    }
  });

  it('answers the metadata to any origin, and its CORS preflight', async () => {
    const got = await raw('/.well-known/oauth-protected-resource/mcp', `127.0.0.1:${port}`, 'GET', {
      origin: 'https://assistant.example',
    });
    expect(got.status).toBe(200);
    expect(got.headers['access-control-allow-origin']).toBe('*');
    expect(JSON.parse(got.body)).toMatchObject({
      resource: `http://127.0.0.1:${port}/mcp`,
      authorization_servers: [`http://127.0.0.1:${port}`],
    });
    const preflight = await raw('/.well-known/oauth-protected-resource', `127.0.0.1:${port}`, 'OPTIONS', {
      origin: 'https://assistant.example',
      'access-control-request-method': 'GET',
      'access-control-request-headers': 'mcp-protocol-version',
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
    expect(String(preflight.headers['access-control-allow-headers'])).toContain('mcp-protocol-version');
  });
});
