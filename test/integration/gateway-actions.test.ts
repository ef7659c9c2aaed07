import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GatewayClient, type GatewayClientOptions } from '../../src/gateway/client.js';
import {
  ActionFailedError,
  BadRequestError,
  ConnectionError,
  ForbiddenError,
  GatewayErrorCode,
  InvalidResponseError,
  RateLimitedError,
  ServerError,
  TimeoutError,
  UnknownOutcomeError,
} from '../../src/gateway/errors.js';
import { createLogger } from '../../src/logger.js';

interface Post {
  method: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

type Handler = (req: IncomingMessage, res: ServerResponse, post: Post) => void;

/** A fake gateway that records each POST body before it decides how to (mis)behave. */
function fakeServer(handle: Handler): { server: Server; posts: Post[] } {
  const posts: Post[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      raw += chunk;
    });
    req.on('end', () => {
      const post = { method: req.method ?? '', headers: req.headers, body: raw ? JSON.parse(raw) : {} };
      posts.push(post);
      handle(req, res, post);
    });
  });
  return { server, posts };
}

async function listen(server: Server, port = 0): Promise<number> {
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function stop(server: Server): Promise<void> {
  if (!server.listening) return;
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': 'req-42' });
  res.end(JSON.stringify(body));
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

function makeClient(baseUrl: string, options: Partial<GatewayClientOptions> = {}) {
  const lines: string[] = [];
  const client = new GatewayClient({
    baseUrl,
    apiKey: 'test-key-123',
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
    logger: createLogger({ level: 'debug', write: (line) => lines.push(line) }),
    ...options,
  });
  cleanups.push(() => client.close());
  return { client, lines };
}

async function setup(handle: Handler, options: Partial<GatewayClientOptions> = {}) {
  const fake = fakeServer(handle);
  const port = await listen(fake.server);
  cleanups.push(() => stop(fake.server));
  return { posts: fake.posts, ...makeClient(`http://127.0.0.1:${port}/gateway`, options) };
}

async function outcomeOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected the action to fail');
    },
    (error: unknown) => error,
  );
}

describe('act: success and failure by body status', () => {
  it('posts the action as JSON once and returns the record', async () => {
    const { client, posts } = await setup((_req, res, post) =>
      json(res, 200, {
        action: post.body.action,
        client_id: post.body.client_id,
        status: 'success',
        status_code: 201,
        data: { id: 'blog-1', post_title: 'Best plumber in Austin' },
      }),
    );
    const result = await client.act('generate_blog', 'acme-plumbing', {
      keyword: 'best plumber',
      tone: 'friendly',
    });
    expect(result).toEqual({
      action: 'generate_blog',
      clientId: 'acme-plumbing',
      httpStatus: 200,
      statusCode: 201,
      data: { id: 'blog-1', post_title: 'Best plumber in Austin' },
    });
    expect(posts).toHaveLength(1);
    expect(posts[0]?.method).toBe('POST');
    expect(posts[0]?.headers['content-type']).toBe('application/json');
    expect(posts[0]?.headers.authorization).toBe('Bearer test-key-123');
    expect(posts[0]?.body).toEqual({
      action: 'generate_blog',
      client_id: 'acme-plumbing',
      keyword: 'best plumber',
      tone: 'friendly',
    });
  });

  it('treats HTTP 200 with status "error" as a failed action carrying status_code and the message', async () => {
    const { client, posts } = await setup((_req, res, post) =>
      post.body.keyword === 'a'
        ? json(res, 200, { status: 'error', status_code: 502, error: 'Generator unavailable', data: {} })
        : json(res, 200, { status: 'error', status_code: 422, data: { message: 'Keyword too short' } }),
    );
    const first = await outcomeOf(client.act('generate_blog', 'acme-plumbing', { keyword: 'a' }));
    expect(first).toBeInstanceOf(ActionFailedError);
    expect((first as ActionFailedError).code).toBe(GatewayErrorCode.ActionFailed);
    expect((first as ActionFailedError).statusCode).toBe(502);
    expect((first as ActionFailedError).message).toBe('Generator unavailable');
    expect((first as ActionFailedError).requestId).toBe('req-42');
    const second = await outcomeOf(client.act('generate_blog', 'acme-plumbing', { keyword: 'b' }));
    expect((second as ActionFailedError).message).toBe('Keyword too short');
    expect((second as ActionFailedError).data).toEqual({ message: 'Keyword too short' });
    expect(posts).toHaveLength(2);
  });

  it('surfaces 400, 403 and 429 as their typed errors without retrying', async () => {
    const { client, posts } = await setup((_req, res, post) => {
      if (post.body.action === 'seo_audit') json(res, 400, { error: 'Missing required field: url' });
      else if (post.body.action === 'index_url') json(res, 403, { error: 'Key lacks the write scope' });
      else json(res, 429, { error: 'Too many requests' });
    });
    const bad = await outcomeOf(client.act('seo_audit', 'acme-plumbing'));
    expect(bad).toBeInstanceOf(BadRequestError);
    expect((bad as BadRequestError).message).toBe('Missing required field: url');
    const forbidden = await outcomeOf(client.act('index_url', 'acme-plumbing', { url: 'https://x.test' }));
    expect(forbidden).toBeInstanceOf(ForbiddenError);
    expect(await outcomeOf(client.act('fetch_backlinks', 'acme-plumbing'))).toBeInstanceOf(RateLimitedError);
    expect(posts).toHaveLength(3);
  });
});

describe('act: unknown outcomes are never retried', () => {
  it('reports a connection dropped after the action ran as an unknown outcome, with one POST sent', async () => {
    let created = 0;
    const { client, posts } = await setup((req) => {
      created++;
      req.socket.destroy();
    });
    const error = await outcomeOf(client.act('generate_blog', 'acme-plumbing', { keyword: 'pipes' }));
    expect(error).toBeInstanceOf(UnknownOutcomeError);
    expect((error as UnknownOutcomeError).underlying).toBeInstanceOf(ConnectionError);
    expect(((error as UnknownOutcomeError).underlying as ConnectionError).neverSent).toBe(false);
    expect((error as UnknownOutcomeError).retryable).toBe(false);
    expect(posts).toHaveLength(1);
    expect(created).toBe(1);
  });

  it('reports a 500 as an unknown outcome keeping the body, with one POST sent', async () => {
    const { client, posts } = await setup((_req, res) => json(res, 500, { error: 'Generator crashed' }));
    const error = await outcomeOf(client.act('generate_blog', 'acme-plumbing', { keyword: 'pipes' }));
    expect(error).toBeInstanceOf(UnknownOutcomeError);
    expect((error as UnknownOutcomeError).underlying).toBeInstanceOf(ServerError);
    expect((error as UnknownOutcomeError).status).toBe(500);
    expect((error as UnknownOutcomeError).body).toEqual({ error: 'Generator crashed' });
    expect((error as UnknownOutcomeError).message).toContain('Generator crashed');
    expect(posts).toHaveLength(1);
  });

  it('reports a POST that outlives its timeout as an unknown outcome, with one POST sent', async () => {
    const { client, posts } = await setup(() => {}, { actionTimeoutMs: 100 });
    const started = Date.now();
    const error = await outcomeOf(client.act('generate_blog', 'acme-plumbing', { keyword: 'pipes' }));
    expect(error).toBeInstanceOf(UnknownOutcomeError);
    expect((error as UnknownOutcomeError).underlying).toBeInstanceOf(TimeoutError);
    expect(Date.now() - started).toBeLessThan(2_000);
    // On a loaded machine the fake server may read the body only after the client gave up.
    await vi.waitFor(() => expect(posts).toHaveLength(1));
  });

  it('honours a per-call timeout over the client default', async () => {
    const { client } = await setup(() => {}, { actionTimeoutMs: 10_000 });
    const started = Date.now();
    const error = await outcomeOf(
      client.act('seo_audit', 'acme-plumbing', { url: 'https://x.test' }, { timeoutMs: 80 }),
    );
    expect((error as UnknownOutcomeError).underlying).toBeInstanceOf(TimeoutError);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('reports a 2xx that is not JSON as an unknown outcome', async () => {
    const { client, posts } = await setup((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>ok?</html>');
    });
    const error = await outcomeOf(client.act('generate_blog', 'acme-plumbing', { keyword: 'pipes' }));
    expect(error).toBeInstanceOf(UnknownOutcomeError);
    expect((error as UnknownOutcomeError).underlying).toBeInstanceOf(InvalidResponseError);
    expect(posts).toHaveLength(1);
  });
});

describe('act: a request that never left may be retried', () => {
  it('retries a refused connection and posts once the gateway listens', async () => {
    const probe = createServer();
    const port = await listen(probe);
    await stop(probe);
    const fake = fakeServer((_req, res) => json(res, 200, { status: 'success', data: { id: 'audit-1' } }));
    cleanups.push(() => stop(fake.server));
    let listening: Promise<number> | undefined;
    cleanups.push(async () => {
      await listening;
    });
    const lines: string[] = [];
    const client = new GatewayClient({
      baseUrl: `http://127.0.0.1:${port}/gateway`,
      apiKey: 'test-key-123',
      random: () => 1,
      retry: { baseDelayMs: 150 },
      logger: createLogger({
        write: (line) => {
          lines.push(line);
          // The first retry warning means one refused attempt: now bring the gateway up.
          listening ??= listen(fake.server, port);
        },
      }),
    });
    cleanups.push(() => client.close());
    const result = await client.act('seo_audit', 'acme-plumbing', { url: 'https://acme.test' });
    expect(result.data).toEqual({ id: 'audit-1' });
    expect(fake.posts).toHaveLength(1);
    expect(lines.filter((line) => line.includes('connection refused'))).toHaveLength(1);
  });

  it('gives up after 5 refused attempts with a never-sent connection error', async () => {
    const probe = createServer();
    const port = await listen(probe);
    await stop(probe);
    const { client, lines } = makeClient(`http://127.0.0.1:${port}/gateway`);
    const error = await outcomeOf(client.act('seo_audit', 'acme-plumbing', { url: 'https://acme.test' }));
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).neverSent).toBe(true);
    expect(lines.filter((line) => JSON.parse(line).level === 'warn')).toHaveLength(4);
  });
});
