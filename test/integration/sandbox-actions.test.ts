import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';

type Row = Record<string, unknown>;
interface ActionBody {
  action?: string;
  client_id?: string;
  status?: 'success' | 'error';
  status_code?: number;
  data?: Row;
  error?: string;
}

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ largeKeywordRows: 1_000 });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

async function post(body: unknown, key = 'sandbox-key') {
  const res = await request(sandbox.url, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.statusCode, body: (await res.body.json()) as ActionBody };
}

async function read(query: Record<string, string>) {
  const res = await request(`${sandbox.url}?${new URLSearchParams(query)}`, {
    headers: { authorization: 'Bearer sandbox-key' },
  });
  return (await res.body.json()) as { data: Row[]; pagination: { total: number } };
}

describe('POST validation (docs/gateway-api.md §4.3 rule 3, §5)', () => {
  it('answers 400 naming the missing required field, and creates nothing', async () => {
    const { status, body } = await post({
      action: 'generate_geo_article',
      client_id: 'harbor-law',
      keyword: 'x',
    });
    expect(status).toBe(400);
    expect(body.error).toMatch(/"city", "state".*generate_geo_article/);
    const noClient = await post({ action: 'generate_blog', keyword: 'x' });
    expect(noClient.status).toBe(400);
    expect(noClient.body.error).toMatch(/"client_id"/);
    const blank = await post({ action: 'generate_blog', client_id: 'harbor-law', keyword: '  ' });
    expect(blank.status).toBe(400);
    expect(sandbox.counts()).toEqual({});
  });

  it('answers 400 for an unknown action (naming it) and for a body that is not JSON', async () => {
    const unknown = await post({ action: 'launch_rocket', client_id: 'harbor-law' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatch(/Unknown action "launch_rocket".*generate_blog/);
    const notJson = await post('action=generate_blog');
    expect(notJson.status).toBe(400);
    expect(notJson.body.error).toMatch(/not valid JSON/);
  });

  it('answers 403 for the read-only key (scope) and for an unlinked client, 401 for a revoked key', async () => {
    const payload = { action: 'generate_blog', client_id: 'harbor-law', keyword: 'wills' };
    const readonly = await post(payload, 'sandbox-readonly');
    expect(readonly.status).toBe(403);
    expect(readonly.body.error).toMatch(/"write" scope/);
    const unlinked = await post(payload, 'sandbox-unlinked');
    expect(unlinked.status).toBe(403);
    expect(unlinked.body.error).toMatch(/not linked/);
    expect((await post(payload, 'sandbox-revoked')).status).toBe(401);
    expect(sandbox.counts()).toEqual({});
  });
});

describe('generation actions (docs/gateway-api.md §4.3 rule 1)', () => {
  it('creates two articles for two generate_blog calls with the same keyword', async () => {
    const payload = { action: 'generate_blog', client_id: 'harbor-law', keyword: 'estate planning boston' };
    const first = await post(payload);
    const second = await post(payload);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      action: 'generate_blog',
      client_id: 'harbor-law',
      status: 'success',
      status_code: 200,
      data: { keyword: 'estate planning boston', status: 'draft' },
    });
    expect(first.body.data?.post_title).toEqual(expect.any(String));
    expect(first.body.data?.id).not.toBe(second.body.data?.id);
    expect(sandbox.counts()).toEqual({ 'harbor-law': { generate_blog: 2 } });
    const drafts = await read({
      resource: 'blogs',
      client_id: 'harbor-law',
      filter_field: 'status',
      filter_value: 'draft',
      order: 'created_at',
      limit: '2',
    });
    expect(drafts.data.map((r) => r.id).sort()).toEqual([first.body.data?.id, second.body.data?.id].sort());
  });

  it('echoes fields beyond the spec into the record (rule 4) so a reader can find it', async () => {
    const { body } = await post({
      action: 'generate_outreach_email',
      client_id: 'bright-dental',
      prospectUrl: 'https://smiles.example/',
      tone: 'friendly',
      word_count: 300,
    });
    expect(body.data).toMatchObject({
      prospectUrl: 'https://smiles.example/',
      tone: 'friendly',
      word_count: 300,
    });
    const rows = sandbox.records('bright-dental', 'backlink_outreach');
    expect(rows.filter((r) => r.prospectUrl === 'https://smiles.example/')).toHaveLength(1);
  });

  it('keeps its own id even when the request sends one', async () => {
    const { body } = await post({
      action: 'generate_faq',
      client_id: 'harbor-law',
      topic: 'probate',
      id: 'faq_000001',
    });
    expect(body.data?.id).not.toBe('faq_000001');
    expect(sandbox.records('harbor-law', 'faqs').at(-1)).toMatchObject({
      id: body.data?.id,
      topic: 'probate',
    });
    expect(sandbox.counts()).toEqual({ 'harbor-law': { generate_faq: 1 } });
  });

  it('runs every discovered action with its required fields', async () => {
    const res = await request(sandbox.url, { headers: { authorization: 'Bearer sandbox-key' } });
    const discovery = (await res.body.json()) as { actions: { action: string; required_fields: string[] }[] };
    for (const { action, required_fields } of discovery.actions) {
      const fields = Object.fromEntries(
        required_fields.map((f) => [f, f === 'url' ? 'https://x.example/' : 'v']),
      );
      const { status, body } = await post({ action, client_id: 'bright-dental', ...fields });
      expect([status, body.status, action]).toEqual([200, 'success', action]);
    }
    const counted = Object.keys(sandbox.counts()['bright-dental'] ?? {});
    expect(counted).toHaveLength(discovery.actions.length - 1);
    expect(counted).not.toContain('fetch_backlinks');
    expect(sandbox.records('bright-dental', 'sent_emails')).toEqual([
      expect.objectContaining({ status: 'sent' }),
    ]);
  });
});

describe('actions that are safe to repeat (docs/gateway-api.md §4.3 rule 2)', () => {
  it('upserts seo_audit by url: a second audit of the same url creates no record', async () => {
    const payload = {
      action: 'seo_audit',
      client_id: 'harbor-law',
      url: 'https://harborlaw.example/new-page',
    };
    const first = await post(payload);
    const second = await post(payload);
    expect(Object.keys(first.body.data ?? {}).sort()).toEqual(['id', 'issues_found', 'score', 'url']);
    expect(second.body.data?.id).toBe(first.body.data?.id);
    const reports = sandbox.records('harbor-law', 'seo_reports').filter((r) => r.url === payload.url);
    expect(reports).toHaveLength(1);
    expect(sandbox.counts()).toEqual({ 'harbor-law': { seo_audit: 1 } });
  });

  it('counts fetch_backlinks as refreshing, not creating', async () => {
    const before = sandbox.records('acme-plumbing', 'backlinks').length;
    const { body } = await post({ action: 'fetch_backlinks', client_id: 'acme-plumbing' });
    await post({ action: 'fetch_backlinks', client_id: 'acme-plumbing' });
    expect(body.data).toMatchObject({ total_backlinks: before, new_backlinks: 0 });
    expect(sandbox.records('acme-plumbing', 'backlinks')).toHaveLength(before);
    expect(sandbox.counts()).toEqual({});
  });
});

describe('deploy_blog', () => {
  it('publishes the named draft and reports post_id and deployed_at', async () => {
    const draft = await post({ action: 'generate_blog', client_id: 'harbor-law', keyword: 'divorce lawyer' });
    const postId = draft.body.data?.id;
    const { body } = await post({ action: 'deploy_blog', client_id: 'harbor-law', post_id: postId });
    expect(body).toMatchObject({
      status: 'success',
      data: { post_id: postId, deployed_at: expect.any(String) },
    });
    const blog = sandbox.records('harbor-law', 'blogs').find((r) => r.id === postId);
    expect(blog).toMatchObject({ status: 'published', published: true });
  });

  it('answers status error (not a success) for a post that does not exist', async () => {
    const { status, body } = await post({
      action: 'deploy_blog',
      client_id: 'harbor-law',
      post_id: 'blog_nope',
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'error', status_code: 404 });
    expect(sandbox.counts()).toEqual({});
  });
});

describe('reset', () => {
  it('forgets created records and counts', async () => {
    await post({ action: 'generate_blog', client_id: 'harbor-law', keyword: 'gone soon' });
    sandbox.reset();
    expect(sandbox.counts()).toEqual({});
    expect(sandbox.requests()).toEqual([]);
    expect(sandbox.records('harbor-law', 'blogs').some((r) => r.keyword === 'gone soon')).toBe(false);
  });
});
