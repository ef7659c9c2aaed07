import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { FORBIDDEN_ADVICE, UNAUTHORIZED_ADVICE } from '../../src/gateway/advice.js';
import { GatewayClient, type GatewayClientOptions } from '../../src/gateway/client.js';
import {
  BadRequestError,
  DeadlineError,
  ForbiddenError,
  InvalidResponseError,
  ResponseTooLargeError,
  ScanLimitError,
  ServerError,
  UnauthorizedError,
} from '../../src/gateway/errors.js';
import { badOrderMessage } from '../../src/gateway/spec.js';
import { createLogger } from '../../src/logger.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  at: number;
}

/** A fake gateway: the outside world, so a real HTTP server whose faults we script per request. */
async function startFake(handle: (req: Seen, res: ServerResponse, n: number) => void) {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const entry = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, at: Date.now() };
      seen.push(entry);
      handle(entry, res, seen.length);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return { url: `http://127.0.0.1:${port}/gateway`, seen, close };
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function page(resource: string, rows: unknown[], total: number, limit: number, offset: number) {
  return {
    resource,
    client_id: 'acme-plumbing',
    data: rows,
    pagination: { total, limit, offset, has_more: offset + limit < total },
  };
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

async function setup(handle: Parameters<typeof startFake>[0], options: Partial<GatewayClientOptions> = {}) {
  const fake = await startFake(handle);
  const lines: string[] = [];
  const client = new GatewayClient({
    baseUrl: fake.url,
    apiKey: 'test-key-123',
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
    logger: createLogger({ level: 'debug', write: (line) => lines.push(line) }),
    ...options,
  });
  cleanups.push(fake.close, () => client.close());
  return { fake, client, lines };
}

const keywordsPage = page('keywords', [{ keyword: 'plumber austin', position: 3 }], 1, 100, 0);

describe('GET retries', () => {
  it('retries a 500 and returns exactly one result', async () => {
    const { fake, client, lines } = await setup((_req, res, n) =>
      n === 1 ? json(res, 500, { error: 'upstream failed' }) : json(res, 200, keywordsPage),
    );
    const result = await client.read('keywords', { clientId: 'acme-plumbing' });
    expect(result.data).toEqual([{ keyword: 'plumber austin', position: 3 }]);
    expect(fake.seen).toHaveLength(2);
    expect(fake.seen[0]?.headers.authorization).toBe('Bearer test-key-123');
    const warnings = lines.filter((line) => JSON.parse(line).level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('GET http://127.0.0.1');
    expect(warnings[0]).toContain('attempt 1/5');
  });

  it('gives up after 5 attempts with the last server error, its body and time', async () => {
    const { fake, client } = await setup((_req, res) => json(res, 503, { error: 'still down' }));
    const error = await client.read('keywords', { clientId: 'acme-plumbing' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerError);
    expect((error as ServerError).body).toEqual({ error: 'still down' });
    expect((error as ServerError).status).toBe(503);
    expect(Date.parse((error as ServerError).at)).not.toBeNaN();
    expect(fake.seen).toHaveLength(5);
  });

  it('does not retry a 400 and keeps the gateway message', async () => {
    const { fake, client } = await setup((_req, res) => json(res, 400, { error: 'Unknown resource "nope"' }));
    const error = await client.read('nope', { clientId: 'acme-plumbing' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).message).toBe('Unknown resource "nope"');
    expect(fake.seen).toHaveLength(1);
  });

  it('tells a bad key (401) from a missing scope or unlinked client (403), without retrying', async () => {
    const { fake, client } = await setup((req, res) =>
      req.url.includes('harbor-law')
        ? json(res, 403, { error: 'Client harbor-law is not linked to this agency' })
        : json(res, 401, { error: 'Invalid or revoked API key' }),
    );
    const unauthorized = await client
      .read('keywords', { clientId: 'acme-plumbing' })
      .catch((e: unknown) => e);
    const forbidden = await client.read('keywords', { clientId: 'harbor-law' }).catch((e: unknown) => e);
    expect(unauthorized).toBeInstanceOf(UnauthorizedError);
    expect((unauthorized as UnauthorizedError).message).toBe('Invalid or revoked API key');
    expect((unauthorized as UnauthorizedError).advice).toBe(UNAUTHORIZED_ADVICE);
    expect(forbidden).toBeInstanceOf(ForbiddenError);
    expect((forbidden as ForbiddenError).message).toBe('Client harbor-law is not linked to this agency');
    expect((forbidden as ForbiddenError).advice).toBe(FORBIDDEN_ADVICE);
    expect(fake.seen).toHaveLength(2);
  });

  it('waits the Retry-After of a 429 (capped) rather than the jittered backoff', async () => {
    const { fake, client } = await setup(
      (_req, res, n) =>
        n === 1
          ? json(res, 429, { error: 'slow down' }, { 'retry-after': '60' })
          : json(res, 200, keywordsPage),
      { random: () => 0, retry: { baseDelayMs: 1, retryAfterCapMs: 200 } },
    );
    await client.read('keywords', { clientId: 'acme-plumbing' });
    expect(fake.seen).toHaveLength(2);
    const gap = (fake.seen[1]?.at ?? 0) - (fake.seen[0]?.at ?? 0);
    expect(gap).toBeGreaterThanOrEqual(180);
    // Far below the minute the header asked for (uncapped, the test times out), so a slow machine has room.
    expect(gap).toBeLessThan(5_000);
  });

  it('retries a GET whose response does not come in time', async () => {
    const { fake, client } = await setup(
      (_req, res, n) => {
        if (n > 1) json(res, 200, keywordsPage);
        // n === 1: never answer; the client's headers timeout fires.
      },
      { headersTimeoutMs: 100 },
    );
    const result = await client.read('keywords', { clientId: 'acme-plumbing' });
    expect(result.pagination.total).toBe(1);
    expect(fake.seen).toHaveLength(2);
  });

  it('stops waiting between retries when the caller aborts', async () => {
    const { client } = await setup((_req, res) => json(res, 500, { error: 'down' }), {
      random: () => 1,
      retry: { baseDelayMs: 10_000 },
    });
    const controller = new AbortController();
    const reason = new Error('user gave up');
    setTimeout(() => controller.abort(reason), 50);
    const started = Date.now();
    await expect(
      client.read('keywords', { clientId: 'acme-plumbing', signal: controller.signal }),
    ).rejects.toBe(reason);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('rejects a 200 that is not JSON or not a page, without retrying', async () => {
    const { fake, client } = await setup((_req, res, n) =>
      n === 1 ? res.end('<html>hello</html>') : json(res, 200, { resource: 'keywords', data: 'nope' }),
    );
    await expect(client.read('keywords', { clientId: 'acme-plumbing' })).rejects.toBeInstanceOf(
      InvalidResponseError,
    );
    await expect(client.read('keywords', { clientId: 'acme-plumbing' })).rejects.toBeInstanceOf(
      InvalidResponseError,
    );
    expect(fake.seen).toHaveLength(2);
  });
});

describe('validation before sending', () => {
  it('rejects a bad order naming the allowed values without any request', async () => {
    const { fake, client } = await setup((_req, res) => json(res, 200, keywordsPage));
    const error = await client
      .read('keywords', { clientId: 'acme-plumbing', order: 'position' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).message).toBe(badOrderMessage('position'));
    expect(() =>
      client.pages('keywords', { clientId: 'acme-plumbing', filter: { field: 'keyword', value: 'x' } }),
    ).toThrow(BadRequestError);
    expect(fake.seen).toHaveLength(0);
  });
});

describe('pagination', () => {
  const total = 2_500;
  const serveRows = (req: Seen, res: ServerResponse) => {
    const query = new URL(req.url, 'http://x').searchParams;
    const limit = Number(query.get('limit') ?? 100);
    const offset = Number(query.get('offset') ?? 0);
    const rows = [];
    for (let i = offset; i < Math.min(total, offset + limit); i++)
      rows.push({ keyword: `kw ${i}`, position: i });
    json(res, 200, page('keywords', rows, total, limit, offset));
  };

  it('follows has_more with offset += limit, 1,000 rows a page', async () => {
    const { fake, client } = await setup(serveRows);
    let count = 0;
    let last = -1;
    for await (const row of client.rows('keywords', { clientId: 'acme-plumbing' })) {
      count++;
      last = row.position as number;
    }
    expect(count).toBe(total);
    expect(last).toBe(total - 1);
    expect(fake.seen.map((r) => new URL(r.url, 'http://x').searchParams.get('offset'))).toEqual([
      '0',
      '1000',
      '2000',
    ]);
  });

  it('asks for no further page once the caller breaks out of the loop', async () => {
    const { fake, client } = await setup(serveRows);
    let count = 0;
    for await (const _row of client.rows('keywords', { clientId: 'acme-plumbing' })) {
      if (++count === 1_500) break;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(fake.seen).toHaveLength(2);
  });

  it('stops at maxRows, asking only for what it needs', async () => {
    const { fake, client } = await setup(serveRows);
    const pages = [];
    for await (const p of client.pages('keywords', {
      clientId: 'acme-plumbing',
      limit: 400,
      maxRows: 1_000,
    })) {
      pages.push(p.data.length);
    }
    expect(pages).toEqual([400, 400, 200]);
    expect(fake.seen.map((r) => new URL(r.url, 'http://x').searchParams.get('limit'))).toEqual([
      '400',
      '400',
      '200',
    ]);
  });

  it('collects up to a cap and says the result is truncated', async () => {
    const { client } = await setup(serveRows);
    const capped = await client.collect('keywords', { clientId: 'acme-plumbing' }, { cap: 1_500 });
    expect(capped.rows).toHaveLength(1_500);
    expect(capped).toMatchObject({ total, truncated: true });
    const all = await client.collect(
      'keywords',
      { clientId: 'acme-plumbing', offset: 2_000 },
      { cap: 1_500 },
    );
    expect(all.rows).toHaveLength(500);
    expect(all.truncated).toBe(false);
  });

  it('stops on an empty page even if the gateway claims more', async () => {
    const { fake, client } = await setup((_req, res) =>
      json(res, 200, {
        ...page('keywords', [], 10, 1000, 0),
        pagination: { total: 10, limit: 1000, offset: 0, has_more: true },
      }),
    );
    const pages = [];
    for await (const p of client.pages('keywords', { clientId: 'acme-plumbing' })) pages.push(p);
    expect(pages).toHaveLength(1);
    expect(fake.seen).toHaveLength(1);
  });
});

describe('discovery', () => {
  const discovery = {
    resources: ['clients', 'keywords'],
    actions: [{ action: 'seo_audit', description: 'Runs a site audit', required_fields: ['url'] }],
  };

  it('is cached: two calls, and two concurrent calls, make one request', async () => {
    const { fake, client } = await setup((_req, res) => setTimeout(() => json(res, 200, discovery), 20));
    const [a, b] = await Promise.all([client.discover(), client.discover()]);
    const c = await client.discover();
    expect(a).toEqual(discovery);
    expect(b).toBe(a);
    expect(c).toBe(a);
    expect(fake.seen).toHaveLength(1);
    expect(fake.seen[0]?.url).toBe('/gateway');
  });

  it('lets one caller give up without failing another waiting for the same request', async () => {
    const { fake, client } = await setup((_req, res) => setTimeout(() => json(res, 200, discovery), 50));
    const controller = new AbortController();
    const impatient = client.discover({ signal: controller.signal });
    const patient = client.discover();
    controller.abort(new Error('gave up'));
    await expect(impatient).rejects.toThrow('gave up');
    await expect(patient).resolves.toEqual(discovery);
    expect(fake.seen).toHaveLength(1);
  });

  it('is refreshed after the TTL and on force', async () => {
    // A second, not 40 ms: the second call must come within it, which a loaded machine may not manage.
    const { fake, client } = await setup((_req, res) => json(res, 200, discovery), { discoveryTtlMs: 1_000 });
    await client.discover();
    await client.discover();
    expect(fake.seen).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await client.discover();
    expect(fake.seen).toHaveLength(2);
    await client.discover({ force: true });
    expect(fake.seen).toHaveLength(3);
  });

  it('rejects a discovery answer of the wrong shape and does not cache it', async () => {
    const { fake, client } = await setup((_req, res, n) =>
      json(res, 200, n === 1 ? { resources: 'all' } : discovery),
    );
    await expect(client.discover()).rejects.toBeInstanceOf(InvalidResponseError);
    await expect(client.discover()).resolves.toEqual(discovery);
    expect(fake.seen).toHaveLength(2);
  });
});

describe('response size cap', () => {
  const rows = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ keyword: `kw ${i} ${'x'.repeat(200)}` }));

  it('refuses a body past the cap, declared or streamed, with a typed error and no retry', async () => {
    const big = page('keywords', rows(2_000), 2_000, 1000, 0);
    const { fake, client } = await setup(
      (_req, res, n) => {
        if (n === 1) return json(res, 200, big);
        // No content-length: the cap must hold while the body streams in.
        res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
        const text = JSON.stringify(big);
        for (let i = 0; i < text.length; i += 16_384) res.write(text.slice(i, i + 16_384));
        res.end();
      },
      { maxBodyBytes: 100_000 },
    );
    for (let attempt = 0; attempt < 2; attempt++) {
      const error = await client.read('keywords', { clientId: 'acme-plumbing' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ResponseTooLargeError);
      expect((error as ResponseTooLargeError).code).toBe('gateway_response_too_large');
      expect((error as ResponseTooLargeError).advice).toMatch(/fewer rows/);
    }
    expect(fake.seen).toHaveLength(2);
  });

  it('reads a body under the cap as usual', async () => {
    const small = page('keywords', rows(50), 50, 100, 0);
    const { client } = await setup((_req, res) => json(res, 200, small), { maxBodyBytes: 100_000 });
    expect((await client.read('keywords', { clientId: 'acme-plumbing' })).data).toHaveLength(50);
  });
});

describe('the whole-read deadline', () => {
  it('ends a read whose body drips, within the deadline, as a DeadlineError', async () => {
    const { client } = await setup(
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
        res.flushHeaders();
        const timer = setInterval(() => res.write(' '), 100);
        res.on('close', () => clearInterval(timer));
      },
      { readTimeoutMs: 600 },
    );
    const started = Date.now();
    await expect(client.read('keywords', { clientId: 'acme-plumbing' })).rejects.toBeInstanceOf(
      DeadlineError,
    );
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('counts every attempt and every backoff against one deadline', async () => {
    const { fake, client } = await setup((_req, res) => json(res, 500, { error: 'upstream failed' }), {
      readTimeoutMs: 700,
      retry: { attempts: 10, baseDelayMs: 400, maxDelayMs: 400 },
      random: () => 0.99,
    });
    const started = Date.now();
    await expect(client.read('keywords', { clientId: 'acme-plumbing' })).rejects.toMatchObject({
      code: 'gateway_deadline',
    });
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(fake.seen.length).toBeLessThanOrEqual(3);
  });

  it('scrubs the key from a successful page that echoes it', async () => {
    const { client } = await setup((req, res) =>
      json(res, 200, page('keywords', [{ keyword: `seen ${req.headers.authorization}` }], 1, 100, 0)),
    );
    const result = await client.read('keywords', { clientId: 'acme-plumbing' });
    expect(result.data[0]?.keyword).toBe('seen Bearer [redacted]');
  });
});

describe('page walks that never end', () => {
  it('stop one page past the first page’s total with a ScanLimitError', async () => {
    const { fake, client } = await setup((req, res) => {
      const url = new URL(req.url, 'http://x');
      const offset = Number(url.searchParams.get('offset') ?? 0);
      const rows = Array.from({ length: 100 }, (_, i) => ({ keyword: `k${offset + i}` }));
      json(res, 200, {
        ...page('keywords', rows, 150, 100, offset),
        pagination: { total: 150, limit: 100, offset, has_more: true },
      });
    });
    let rows = 0;
    const walk = async () => {
      for await (const _row of client.rows('keywords', { clientId: 'acme-plumbing', limit: 100 })) rows += 1;
    };
    await expect(walk()).rejects.toBeInstanceOf(ScanLimitError);
    // 150 announced, room for one more page: the third page passes 250 rows and is not handed over.
    expect(rows).toBe(200);
    expect(fake.seen).toHaveLength(3);
  });
});
