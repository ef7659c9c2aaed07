import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildCatalogue } from '../../src/actions/catalogue.js';
import { findEarlierRecord } from '../../src/actions/duplicate-guard.js';
import { GatewayClient } from '../../src/gateway/client.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';

/** The duplicate guard against the real sandbox gateway over HTTP (docs/gateway-api.md §4.4 rule 1). */

const CLIENT = 'acme-plumbing';
let sandbox: Sandbox;
let gateway: GatewayClient;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
  gateway = new GatewayClient({ baseUrl: sandbox.url, apiKey: 'sandbox-key', retry: { attempts: 1 } });
});

afterAll(async () => {
  await gateway?.close();
  await sandbox?.close();
});

beforeEach(() => sandbox.reset());

const catalogue = buildCatalogue(undefined, { guardedActions: [] });
const blog = catalogue.byAction('generate_blog')!;

describe('finding the earlier record of the same request', () => {
  it('finds a blog created for the same keyword, whatever its case and spacing', async () => {
    const keyword = 'duplicate guard test keyword';
    const created = await gateway.act('generate_blog', CLIENT, { keyword });
    const found = await findEarlierRecord(gateway, blog, CLIENT, {
      keyword: '  Duplicate GUARD test keyword ',
    });
    expect(found?.id).toBe(created.data.id);
    expect(found?.keyword).toBe(keyword);
  });

  it('finds nothing for a different keyword, nor for the same keyword of another client', async () => {
    await gateway.act('generate_blog', CLIENT, { keyword: 'duplicate guard test keyword' });
    expect(
      await findEarlierRecord(gateway, blog, CLIENT, { keyword: 'a keyword nobody wrote about' }),
    ).toBeUndefined();
    expect(
      await findEarlierRecord(gateway, blog, 'bright-dental', { keyword: 'duplicate guard test keyword' }),
    ).toBeUndefined();
  });

  it('compares every same field: a geo article for another city is not the same', async () => {
    const geo = catalogue.byAction('generate_geo_article')!;
    await gateway.act('generate_geo_article', CLIENT, {
      keyword: 'guard drains',
      city: 'Austin',
      state: 'TX',
    });
    const same = await findEarlierRecord(gateway, geo, CLIENT, {
      keyword: 'guard drains',
      city: 'austin',
      state: 'tx',
    });
    expect(same?.city).toBe('Austin');
    const other = { keyword: 'guard drains', city: 'Dallas', state: 'TX' };
    expect(await findEarlierRecord(gateway, geo, CLIENT, other)).toBeUndefined();
  });

  it('reads newest first and gives up after the scan limit', async () => {
    const keyword = 'guard scan limit keyword';
    await gateway.act('generate_blog', CLIENT, { keyword });
    const before = sandbox.requests().length;
    expect(await findEarlierRecord(gateway, blog, CLIENT, { keyword }, { scanLimit: 5 })).toBeDefined();
    const reads = sandbox.requests().slice(before);
    expect(reads).toHaveLength(1);
    expect(reads[0]).toMatchObject({ method: 'GET', resource: 'blogs', clientId: CLIENT });

    // A seeded blog far down the list is out of reach of a small scan, in reach of a full one.
    const rows = sandbox
      .records(CLIENT, 'blogs')
      .sort((a, b) => String(a.created_at).localeCompare(String(b.created_at)));
    const oldest = rows[0]!;
    const olderKeyword = { keyword: String(oldest.keyword) };
    const sameKeywordRows = rows.filter(
      (r) => String(r.keyword).toLowerCase() === olderKeyword.keyword.toLowerCase(),
    );
    const newestOfThem = sameKeywordRows.at(-1)!;
    expect(await findEarlierRecord(gateway, blog, CLIENT, olderKeyword, { scanLimit: 1 })).toBeUndefined();
    const found = await findEarlierRecord(gateway, blog, CLIENT, olderKeyword, { scanLimit: 5000 });
    expect(found?.id).toBe(newestOfThem.id);
  });

  it('does not read at all when the action has no record resource or no same fields, or the values are empty', async () => {
    const before = sandbox.requests().length;
    const image = catalogue.byAction('generate_blog_image')!;
    const audit = catalogue.byAction('seo_audit')!;
    expect(await findEarlierRecord(gateway, image, CLIENT, { title: 'x' })).toBeUndefined();
    expect(await findEarlierRecord(gateway, audit, CLIENT, { url: 'https://a.example' })).toBeUndefined();
    expect(await findEarlierRecord(gateway, blog, CLIENT, { keyword: '  ' })).toBeUndefined();
    expect(sandbox.requests().length).toBe(before);
  });
});
