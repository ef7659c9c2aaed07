import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayClient } from '../../src/gateway/client.js';
import { GatewayError } from '../../src/gateway/errors.js';
import { createLogger } from '../../src/logger.js';

const KEY = 'agency-key-7f3a9c2e51d04b8e';

/**
 * A hostile gateway: it echoes the Authorization header back in every error body, the way a debugging proxy
 * might. Whatever it does, the key must not reach an error, a log line or a printout of the client.
 */
let server: Server;
let baseUrl: string;
let refusedUrl: string;
const lines: string[] = [];

function echo(res: ServerResponse, status: number, auth: string | undefined) {
  res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': 'r-1' });
  res.end(JSON.stringify({ error: `rejected header ${auth}`, message: auth, data: { message: auth } }));
}

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const auth = req.headers.authorization;
      const url = req.url ?? '';
      if (url.includes('c401')) echo(res, 401, auth);
      else if (url.includes('c403')) echo(res, 403, auth);
      else if (url.includes('c500')) echo(res, 500, auth);
      else if (url.includes('cjunk')) res.end(`<html>${auth}</html>`);
      else if (url.includes('hang')) return;
      else if (req.method === 'POST' && url.includes('drop')) req.socket.destroy();
      else if (req.method === 'POST') echo(res, 200, auth);
      else echo(res, 500, auth);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/gw`;
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  refusedUrl = `http://127.0.0.1:${(probe.address() as AddressInfo).port}/gw`;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function makeClient(url = baseUrl) {
  return new GatewayClient({
    baseUrl: url,
    apiKey: KEY,
    headersTimeoutMs: 100,
    actionTimeoutMs: 100,
    retry: { attempts: 2, baseDelayMs: 1 },
    logger: createLogger({ level: 'debug', write: (line) => lines.push(line) }),
  });
}

function everyView(error: unknown): string {
  const e = error as GatewayError;
  return [
    String(error),
    e.message,
    e.advice ?? '',
    JSON.stringify(error),
    JSON.stringify(e.body),
    inspect(error, { depth: 20, showHidden: true }),
    e.cause instanceof Error ? `${e.cause.message} ${e.cause.stack}` : '',
  ].join('\n');
}

describe('the API key stays secret', () => {
  it('never appears in any error, whatever the gateway echoes back', async () => {
    const client = makeClient();
    const refused = makeClient(refusedUrl);
    const failures = await Promise.all([
      client.read('keywords', { clientId: 'c401' }).catch((e: unknown) => e),
      client.read('keywords', { clientId: 'c403' }).catch((e: unknown) => e),
      client.read('keywords', { clientId: 'c500' }).catch((e: unknown) => e),
      client.read('keywords', { clientId: 'cjunk' }).catch((e: unknown) => e),
      client.act('generate_blog', 'drop', { keyword: 'x' }).catch((e: unknown) => e),
      client.act('generate_blog', 'hang', { keyword: 'x' }).catch((e: unknown) => e),
      client.act('generate_blog', 'c500', { keyword: 'x' }).catch((e: unknown) => e),
      client.act('generate_blog', 'ok', { keyword: 'x' }).catch((e: unknown) => e),
      refused.read('keywords', { clientId: 'a' }).catch((e: unknown) => e),
    ]);
    await Promise.all([client.close(), refused.close()]);
    for (const failure of failures) {
      expect(failure).toBeInstanceOf(GatewayError);
      expect(everyView(failure)).not.toContain(KEY);
    }
    // The echo really happened: the gateway text is kept, with the key cut out.
    expect((failures[0] as GatewayError).message).toBe('rejected header Bearer [redacted]');
  });

  it('never appears in a printout of the client', async () => {
    const client = makeClient();
    expect(inspect(client, { depth: 20, showHidden: true })).not.toContain(KEY);
    expect(JSON.stringify(client)).not.toContain(KEY);
    expect(String(client)).not.toContain(KEY);
    expect(`${JSON.stringify({ client })}`).not.toContain(KEY);
    await client.close();
  });

  it('never appears in log lines, which show the request with the header redacted', () => {
    expect(lines.length).toBeGreaterThan(5);
    for (const line of lines) expect(line).not.toContain(KEY);
    expect(lines.some((line) => line.includes('Bearer [redacted]'))).toBe(true);
    expect(
      lines.some((line) => JSON.parse(line).level === 'warn' && line.includes('GET http://127.0.0.1')),
    ).toBe(true);
  });
});
