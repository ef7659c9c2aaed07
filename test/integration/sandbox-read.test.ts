import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  badFilterMessage,
  badOrderMessage,
  FILTER_FIELDS,
  ORDER_FIELDS,
  SPEC_ACTIONS,
  SPEC_RESOURCES,
} from '../../src/gateway/spec.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';

type Row = Record<string, unknown>;
interface PageBody {
  resource: string;
  client_id?: string;
  data: Row[];
  pagination: { total: number; limit: number; offset: number; has_more: boolean };
  error?: string;
}

let sandbox: Sandbox;
let startupMs = 0;

beforeAll(async () => {
  const started = performance.now();
  sandbox = await startSandbox();
  startupMs = performance.now() - started;
});
afterAll(() => sandbox.close());

async function get(query: Record<string, string | number>, key: string | null = 'sandbox-key') {
  const search = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
  const res = await request(`${sandbox.url}${search.size ? `?${search}` : ''}`, {
    headers: key === null ? {} : { authorization: `Bearer ${key}` },
  });
  return { status: res.statusCode, headers: res.headers, body: (await res.body.json()) as PageBody };
}

describe('sandbox start', () => {
  it('listens within 1.5 s even with the 100,000-row client', () => {
    expect(startupMs).toBeLessThan(1_500);
    expect(sandbox.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/gateway$/);
  });
});

describe('discovery (docs/gateway-api.md §4.1)', () => {
  it('lists every spec resource and action, plus the extra faqs resource and generate_faq action', async () => {
    const { status, body } = await get({});
    const discovery = body as unknown as {
      resources: string[];
      actions: { action: string; description: string; required_fields: string[] }[];
    };
    expect(status).toBe(200);
    expect(discovery.resources).toEqual(expect.arrayContaining([...SPEC_RESOURCES, 'faqs']));
    expect(discovery.actions).toHaveLength(SPEC_ACTIONS.length + 1);
    for (const spec of SPEC_ACTIONS) {
      expect(discovery.actions).toContainEqual({
        action: spec.action,
        description: spec.description,
        required_fields: [...spec.required],
      });
    }
    expect(discovery.actions).toContainEqual(
      expect.objectContaining({ action: 'generate_faq', required_fields: ['topic'] }),
    );
  });

  it('still needs a key', async () => {
    expect((await get({}, null)).status).toBe(401);
  });
});

describe('authentication (docs/gateway-api.md §5)', () => {
  it('answers 401 with advice to create a key when the key is missing, unknown or revoked', async () => {
    for (const key of [null, 'not-a-key', 'sandbox-revoked']) {
      const { status, body } = await get({ resource: 'clients' }, key);
      expect(status).toBe(401);
      expect(body.error).toMatch(/agency automations area/);
    }
    expect((await get({ resource: 'clients' }, 'sandbox-revoked')).body.error).toMatch(/revoked/);
  });

  it('accepts the key in X-API-Key as well', async () => {
    const res = await request(`${sandbox.url}?resource=clients`, { headers: { 'x-api-key': 'sandbox-key' } });
    expect(res.statusCode).toBe(200);
    await res.body.dump();
  });

  it('answers 403 "not linked" for an unlinked or unknown client, and lists no clients for the unlinked key', async () => {
    const unlinked = await get({ resource: 'reviews', client_id: 'acme-plumbing' }, 'sandbox-unlinked');
    expect(unlinked.status).toBe(403);
    expect(unlinked.body.error).toMatch(/not linked.*regenerate the key or re-check its scopes/);
    const unknown = await get({ resource: 'reviews', client_id: 'no-such-client' });
    expect(unknown.status).toBe(403);
    const clients = await get({ resource: 'clients' }, 'sandbox-unlinked');
    expect(clients.status).toBe(200);
    expect(clients.body.data).toEqual([]);
    expect(clients.body.pagination).toEqual({ total: 0, limit: 100, offset: 0, has_more: false });
  });

  it('lets the read-only key read', async () => {
    expect((await get({ resource: 'reviews', client_id: 'harbor-law' }, 'sandbox-readonly')).status).toBe(
      200,
    );
  });
});

describe('methods (docs/gateway-api.md §4)', () => {
  it('answers 405 with a JSON error for PUT and DELETE', async () => {
    for (const method of ['PUT', 'DELETE'] as const) {
      const res = await request(sandbox.url, { method, headers: { authorization: 'Bearer sandbox-key' } });
      expect(res.statusCode).toBe(405);
      expect(res.headers.allow).toBe('GET, POST');
      expect(((await res.body.json()) as { error: string }).error).toMatch(/GET .* and POST/);
    }
  });
});

describe('reads (docs/gateway-api.md §4.2)', () => {
  it('lists the three sample clients without client_id in the exact response shape', async () => {
    const { status, body } = await get({ resource: 'clients' });
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(['resource', 'data', 'pagination']);
    expect(body.data.map((c) => c.id)).toEqual(['acme-plumbing', 'bright-dental', 'harbor-law']);
    expect(body.data[0]).toEqual({
      id: 'acme-plumbing',
      name: 'Acme Plumbing & Heating',
      website: 'https://acmeplumbing.example',
      status: 'active',
    });
  });

  it('echoes resource and client_id and pages with limit 100 and offset 0 by default', async () => {
    const { body } = await get({ resource: 'reviews', client_id: 'acme-plumbing' });
    expect(Object.keys(body)).toEqual(['resource', 'client_id', 'data', 'pagination']);
    expect(body.client_id).toBe('acme-plumbing');
    expect(body.data).toHaveLength(100);
    expect(body.pagination).toMatchObject({ limit: 100, offset: 0, has_more: true });
    expect(body.pagination.total).toBeGreaterThanOrEqual(3_000);
  });

  it('rejects a missing or unknown resource and a missing client_id, naming what is wrong', async () => {
    const missing = await get({ client_id: 'acme-plumbing' });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatch(/"resource"/);
    const unknown = await get({ resource: 'widgets', client_id: 'acme-plumbing' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatch(/Unknown resource "widgets".*keywords/);
    const noClient = await get({ resource: 'keywords' });
    expect(noClient.status).toBe(400);
    expect(noClient.body.error).toMatch(/"client_id"/);
  });

  it('answers a bad order or filter_field with 400 naming every allowed value (rule 1)', async () => {
    const order = await get({ resource: 'reviews', client_id: 'harbor-law', order: 'rating' });
    expect(order.status).toBe(400);
    expect(order.body.error).toBe(badOrderMessage('rating'));
    for (const field of ORDER_FIELDS) expect(order.body.error).toContain(field);
    const filter = await get({
      resource: 'reviews',
      client_id: 'harbor-law',
      filter_field: 'rating',
      filter_value: '5',
    });
    expect(filter.status).toBe(400);
    expect(filter.body.error).toBe(badFilterMessage('rating'));
    for (const field of FILTER_FIELDS) expect(filter.body.error).toContain(field);
  });

  it('rejects limit above 1000, limit 0, a negative offset and a bad direction', async () => {
    const base = { resource: 'reviews', client_id: 'harbor-law' };
    expect((await get({ ...base, limit: 1001 })).body.error).toMatch(/1 to 1000/);
    expect((await get({ ...base, limit: 0 })).status).toBe(400);
    expect((await get({ ...base, offset: -1 })).status).toBe(400);
    expect((await get({ ...base, direction: 'up' })).body.error).toMatch(/asc, desc/);
    expect((await get({ ...base, limit: 1000 })).status).toBe(200);
  });

  it('combines a filter with an order (rule 2): negative reviews, newest first', async () => {
    const { body } = await get({
      resource: 'reviews',
      client_id: 'acme-plumbing',
      filter_field: 'sentiment',
      filter_value: 'negative',
      order: 'created_at',
      limit: 1000,
    });
    const all = sandbox.records('acme-plumbing', 'reviews');
    const negatives = all.filter((r) => r.sentiment === 'negative');
    expect(body.pagination.total).toBe(negatives.length);
    expect(negatives.length).toBeGreaterThan(100);
    expect(negatives.length).toBeLessThan(all.length);
    expect(body.data.every((r) => r.sentiment === 'negative')).toBe(true);
    const dates = body.data.map((r) => String(r.created_at));
    expect(dates).toEqual([...dates].sort().reverse());
    const ascending = await get({
      resource: 'reviews',
      client_id: 'acme-plumbing',
      order: 'created_at',
      direction: 'asc',
      limit: 5,
    });
    expect(ascending.body.data[0]?.created_at).toBe(all[0]?.created_at);
  });

  it('matches booleans as text and orders by numeric fields numerically', async () => {
    const published = await get({
      resource: 'blogs',
      client_id: 'acme-plumbing',
      filter_field: 'published',
      filter_value: 'true',
      limit: 1000,
    });
    expect(published.body.data.length).toBeGreaterThan(0);
    expect(published.body.data.every((r) => r.published === true)).toBe(true);
    const links = await get({
      resource: 'backlinks',
      client_id: 'acme-plumbing',
      order: 'linking_domains',
      limit: 50,
    });
    const values = links.body.data.map((r) => Number(r.linking_domains));
    expect(values).toEqual([...values].sort((a, b) => b - a));
  });

  it('keeps natural order when ordering by a field the rows lack', async () => {
    const natural = await get({ resource: 'citations', client_id: 'harbor-law' });
    const ordered = await get({ resource: 'citations', client_id: 'harbor-law', order: 'appearances' });
    expect(ordered.body.data.map((r) => r.id)).toEqual(natural.body.data.map((r) => r.id));
  });

  it('says has_more until offset + limit reaches total, and pages past the end are empty', async () => {
    const base = { resource: 'reviews', client_id: 'bright-dental', limit: 10 };
    const first = await get(base);
    const total = first.body.pagination.total;
    expect(total).toBe(30);
    const last = await get({ ...base, offset: 20 });
    expect(last.body.pagination).toEqual({ total: 30, limit: 10, offset: 20, has_more: false });
    const middle = await get({ ...base, offset: 19 });
    expect(middle.body.pagination.has_more).toBe(true);
    const beyond = await get({ ...base, offset: 40 });
    expect(beyond.body.data).toEqual([]);
  });

  it('serves hostile strings in the small clients so escaping gets tested', async () => {
    const { body } = await get({ resource: 'reviews', client_id: 'bright-dental', limit: 1 });
    expect(body.data[0]?.text).toContain('<!channel>');
    expect(body.data[0]?.text).toContain('<https://evil.example|click here>');
    expect(body.data[0]?.text).toContain('&amp;');
  });

  it('walks all 100,000 keywords of the large client in 100 pages of 1000 (rule 3)', async () => {
    // CPU time of this process (the client and the in-process sandbox): a loaded machine stretches the wall
    // clock (12–18 s seen with two cores busy elsewhere) but hardly this (about 1.4 s either way).
    const cpu = process.cpuUsage();
    const ids = new Set<unknown>();
    let offset = 0;
    let pages = 0;
    for (;;) {
      const { status, body } = await get({
        resource: 'keywords',
        client_id: 'acme-plumbing',
        order: 'tracked_at',
        limit: 1000,
        offset,
      });
      expect(status).toBe(200);
      pages += 1;
      for (const row of body.data) ids.add(row.id);
      if (!body.pagination.has_more) break;
      offset += body.pagination.limit;
    }
    const used = process.cpuUsage(cpu);
    expect(pages).toBe(100);
    expect(ids.size).toBe(100_000);
    // Loose on purpose: this measures the client too; server-side the walk takes well under 2 s.
    expect((used.user + used.system) / 1_000).toBeLessThan(10_000);
    const row = sandbox.records('acme-plumbing', 'keywords')[0]!;
    expect(Object.keys(row).sort()).toEqual(
      [
        'created_at',
        'difficulty',
        'id',
        'keyword',
        'position',
        'search_volume',
        'status',
        'tracked_at',
        'url',
      ].sort(),
    );
    expect(row.created_at).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  }, 60_000);
});
