import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GatewayClient } from '../../src/gateway/client.js';
import {
  ActionFailedError,
  BadRequestError,
  ConnectionError,
  ForbiddenError,
  ServerError,
  UnauthorizedError,
  UnknownOutcomeError,
} from '../../src/gateway/errors.js';
import { badFilterMessage, badOrderMessage, SANDBOX_KEYS } from '../../src/gateway/spec.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';

/** The client against the built-in gateway: the real answers, keys, sample data and scripted faults. */

let sandbox: Sandbox;
let client: GatewayClient;
const others: GatewayClient[] = [];

function clientWith(apiKey: string): GatewayClient {
  const made = new GatewayClient({ baseUrl: sandbox.url, apiKey, retry: { baseDelayMs: 1, maxDelayMs: 5 } });
  others.push(made);
  return made;
}

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
  client = new GatewayClient({
    baseUrl: sandbox.url,
    apiKey: SANDBOX_KEYS.full,
    actionTimeoutMs: 300,
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
  });
});

beforeEach(() => sandbox.reset());

afterAll(async () => {
  await Promise.all([client.close(), ...others.map((c) => c.close())]);
  await sandbox.close();
});

function gets(): number {
  return sandbox.requests().filter((r) => r.method === 'GET').length;
}

function posts(): number {
  return sandbox.requests().filter((r) => r.method === 'POST').length;
}

describe('reading the sandbox', () => {
  it('pages to the end of the large client: 100 pages, 100,000 rows, counted not stored', async () => {
    let pages = 0;
    let rows = 0;
    const ids = new Set<string>();
    for await (const page of client.pages('keywords', { clientId: 'acme-plumbing' })) {
      pages++;
      rows += page.data.length;
      // Two ids a page are enough to prove the offsets moved without keeping 100k rows.
      ids.add(String(page.data[0]?.id));
      ids.add(String(page.data.at(-1)?.id));
      expect(page.pagination.total).toBe(100_000);
    }
    expect(pages).toBe(100);
    expect(rows).toBe(100_000);
    expect(ids.size).toBe(200);
    expect(gets()).toBe(100);
  });

  it('streams rows with a filter and an order combined', async () => {
    let count = 0;
    let previous = '9999';
    for await (const row of client.rows('keywords', {
      clientId: 'acme-plumbing',
      filter: { field: 'status', value: 'active' },
      order: 'tracked_at',
      direction: 'desc',
      maxRows: 2_500,
    })) {
      expect(row.status).toBe('active');
      expect(String(row.tracked_at) <= previous).toBe(true);
      previous = String(row.tracked_at);
      count++;
    }
    expect(count).toBe(2_500);
  });

  it('lists the clients without a client id and discovers resources and actions once', async () => {
    const clients = await client.collect('clients', {}, { cap: 100 });
    expect(clients.rows.map((row) => row.id)).toEqual(
      expect.arrayContaining(['acme-plumbing', 'bright-dental', 'harbor-law']),
    );
    const first = await client.discover({ force: true });
    await client.discover();
    expect(first.resources).toContain('keywords');
    expect(first.actions.map((a) => a.action)).toContain('generate_blog');
    expect(gets()).toBe(2);
  });

  it('gives the same 400 wording as the gateway, so the pre-check matches', async () => {
    const bare = await fetchError(`${sandbox.url}?resource=keywords&client_id=acme-plumbing&order=position`);
    expect(bare).toBe(badOrderMessage('position'));
    const bareFilter = await fetchError(
      `${sandbox.url}?resource=keywords&client_id=acme-plumbing&filter_field=nope&filter_value=1`,
    );
    expect(bareFilter).toBe(badFilterMessage('nope'));
    await expect(client.read('keywords', { clientId: 'acme-plumbing', order: 'position' })).rejects.toThrow(
      bare ?? 'unreachable',
    );
  });

  it('retries a 500 on GET once and reads the page', async () => {
    sandbox.failNext('500', { method: 'GET', resource: 'reviews' });
    const page = await client.read('reviews', { clientId: 'bright-dental', limit: 5 });
    expect(page.data.length).toBeGreaterThan(0);
    expect(gets()).toBe(2);
  });

  it('tells a revoked key (401) from a read-only key posting or an unlinked client (403)', async () => {
    const revoked = await clientWith(SANDBOX_KEYS.revoked)
      .read('keywords', { clientId: 'acme-plumbing' })
      .catch((e: unknown) => e);
    expect(revoked).toBeInstanceOf(UnauthorizedError);
    const readonly = await clientWith(SANDBOX_KEYS.readonly)
      .act('seo_audit', 'acme-plumbing', { url: 'https://acmeplumbing.example' })
      .catch((e: unknown) => e);
    expect(readonly).toBeInstanceOf(ForbiddenError);
    expect((readonly as ForbiddenError).message).toContain('write');
    const unlinked = await clientWith(SANDBOX_KEYS.unlinked)
      .read('keywords', { clientId: 'harbor-law' })
      .catch((e: unknown) => e);
    expect(unlinked).toBeInstanceOf(ForbiddenError);
    expect(gets() + posts()).toBe(3);
  });
});

describe('acting on the sandbox', () => {
  it('creates one record per successful action', async () => {
    const result = await client.act('generate_blog', 'bright-dental', { keyword: 'teeth whitening' });
    expect(result.data.id).toEqual(expect.any(String));
    expect(sandbox.counts()).toEqual({ 'bright-dental': { generate_blog: 1 } });
  });

  it('reports a dropped connection after the action ran as unknown: one POST, one record', async () => {
    sandbox.failNext('drop_after_action', { method: 'POST' });
    const error = await client
      .act('generate_blog', 'bright-dental', { keyword: 'implants' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnknownOutcomeError);
    expect((error as UnknownOutcomeError).underlying).toBeInstanceOf(ConnectionError);
    expect(posts()).toBe(1);
    expect(sandbox.counts()).toEqual({ 'bright-dental': { generate_blog: 1 } });
  });

  it('reports a 500 after the action ran, and a held response, as unknown without a second POST', async () => {
    sandbox.failNext('500_after_action', { method: 'POST' });
    const failed = await client
      .act('generate_blog', 'harbor-law', { keyword: 'wills' })
      .catch((e: unknown) => e);
    expect((failed as UnknownOutcomeError).underlying).toBeInstanceOf(ServerError);
    sandbox.failNext('timeout', { method: 'POST' });
    const held = await client
      .act('generate_blog', 'harbor-law', { keyword: 'trusts' })
      .catch((e: unknown) => e);
    expect(held).toBeInstanceOf(UnknownOutcomeError);
    expect(posts()).toBe(2);
    expect(sandbox.counts()).toEqual({ 'harbor-law': { generate_blog: 2 } });
  });

  it('treats status "error" on HTTP 200 as a failed action with its status_code, creating nothing', async () => {
    sandbox.failNext('status_error', { method: 'POST' });
    const error = await client
      .act('generate_blog', 'bright-dental', { keyword: 'braces' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ActionFailedError);
    expect((error as ActionFailedError).statusCode).toBe(502);
    expect((error as ActionFailedError).message.length).toBeGreaterThan(10);
    expect(sandbox.counts()).toEqual({});
  });

  it('rejects a missing required field with the gateway message', async () => {
    const error = await client.act('seo_audit', 'acme-plumbing', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).message).toContain('url');
  });
});

/** The gateway's own 400 text, read without the client, to compare wordings. */
async function fetchError(url: string): Promise<string | undefined> {
  const { request } = await import('undici');
  const res = await request(url, { headers: { authorization: `Bearer ${SANDBOX_KEYS.full}` } });
  const body = (await res.body.json()) as { error?: string };
  return body.error;
}
