/**
 * The assistant-tool server: the SDK's own client over Streamable HTTP against two web processes and a worker
 * on one Redis, the Slack stand-in and the sandbox gateway. Tokens are minted in Slack; reads page with signed
 * cursors; actions go through the request layer; deploys wait for an approver's click in Slack.
 */
import { request } from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SlackDriver } from '../../src/local/driver.js';
import type { FakeMessage } from '../../src/local/fake-slack/index.js';
import type { Runtime } from '../../src/runtime.js';
import { type RoleFleet, startRoleFleet } from '../helpers/role-fleet.js';

const ADMIN = 'UADMIN';
const MEMBER = 'UMEMBER';
const OTHER = 'UOTHER';
const GUEST = 'UGUEST';
const CHANNEL = 'CSEO';
const LARGE = 'acme-plumbing';
const KEYWORD_ROWS = 3_000;

const textOf = (m: FakeMessage) => `${m.text}\n${JSON.stringify(m.blocks ?? [])}`;

type Structured = Record<string, unknown>;

describe('assistant tools (MCP)', () => {
  let fleet: RoleFleet;
  let webs: Runtime[];
  let driver: SlackDriver;
  const clients: Client[] = [];

  const url = (web: Runtime) => new URL(`http://127.0.0.1:${web.port}/mcp`);

  async function connect(
    token: string,
    web: Runtime = webs[0] as Runtime,
    era: 'legacy' | 'modern' = 'legacy',
  ): Promise<Client> {
    const client = new Client(
      { name: 'e2e', version: '1.0.0' },
      era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
    );
    await client.connect(
      new StreamableHTTPClientTransport(url(web), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    clients.push(client);
    return client;
  }

  async function call(client: Client, name: string, args: Record<string, unknown>) {
    const result = await client.callTool({ name, arguments: args });
    return result as { structuredContent?: Structured; isError?: boolean; content: { text: string }[] };
  }

  /** `/gateway <text>` as a person in the channel; the newest ephemeral answer that matches. */
  async function command(text: string, user: string, pattern: RegExp): Promise<FakeMessage> {
    const before = fleet.slack.ephemerals(CHANNEL, user).length;
    await driver.command(text, { user, channel: CHANNEL });
    return fleet.slack.waitFor(
      () =>
        fleet.slack
          .ephemerals(CHANNEL, user)
          .slice(before)
          .find((m) => pattern.test(textOf(m))),
      { what: `an answer to ${text} matching ${pattern}` },
    );
  }

  async function mint(user: string, read = false): Promise<string> {
    const answer = await command(`mcp token${read ? ' read' : ''}`, user, /gwb_/);
    const token = /gwb_[A-Za-z0-9_-]{20,}/.exec(textOf(answer))?.[0];
    if (!token) throw new Error('no token in the answer');
    return token;
  }

  beforeAll(async () => {
    fleet = await startRoleFleet('e2e-mcp', {
      sandboxLatencyMs: 0,
      largeKeywordRows: KEYWORD_ROWS,
      env: {
        GATEWAY_ACTION_RATE: '1000/1s',
        GATEWAY_ACTION_TIMEOUT: '2s',
        // The requester is an approver too, so its own click is refused as self-approval, not as a stranger's.
        GATEWAY_APPROVERS: `${ADMIN},${MEMBER}`,
        MCP_RATE: '100000/60s',
        // Each test mints its own tokens: more than a person may mint in a minute by default.
        MCP_MINT_RATE: '1000/1s',
        MCP_TOKENS_PER_PERSON: '1000',
      },
    });
    webs = [await fleet.start('web'), await fleet.start('web')];
    await fleet.start('worker', { worker: { reconcileGraceMs: 50, backoffMs: 50 } });
    driver = new SlackDriver({
      eventsUrl: `http://127.0.0.1:${webs[0]?.port}/slack/events`,
      signingSecret: fleet.signingSecret,
      slack: fleet.slack,
    });
    for (const user of [ADMIN, MEMBER]) fleet.slack.simulate.joinChannel(CHANNEL, user);
    await driver.command(`use ${LARGE}`, { user: ADMIN, channel: CHANNEL });
    await fleet.slack.waitFor(
      () => fleet.slack.messages(CHANNEL).find((m) => m.text.includes('now bound to')),
      { what: 'the binding' },
    );
  }, 60_000);

  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => {});
    await fleet?.close();
  });

  it('lists every tool of docs/gateway-api.md §4.5 with schemas and annotations', async () => {
    const client = await connect(await mint(MEMBER));
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const name of [
      'list_clients',
      'get_client',
      'list_keywords',
      'list_rankings',
      'list_audits',
      'get_audit_issues',
      'list_backlinks',
      'list_citations',
      'list_articles',
      'list_calls',
      'list_reports',
      'list_resource',
      'run_seo_audit',
      'refresh_backlinks',
      'generate_keyword_ideas',
      'generate_topical_map',
      'generate_article',
      'deploy_article',
      'optimize_page',
      'index_url',
      'generate_press_release',
      'generate_gbp_post',
      'run_local_grid_scan',
      'analyze_llm_visibility',
      'generate_outreach_email',
      'send_prospect_email',
      'run_action',
      'get_job',
    ])
      expect(names).toContain(name);
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('list_keywords')?.annotations?.readOnlyHint).toBe(true);
    expect(byName.get('list_keywords')?.outputSchema).toBeDefined();
    expect(byName.get('deploy_article')?.annotations?.destructiveHint).toBe(true);
    expect(byName.get('generate_article')?.annotations?.destructiveHint).toBe(false);
    expect(byName.get('generate_article')?.annotations?.idempotentHint).toBe(false);
    expect(byName.get('deploy_article')?.description).toMatch(/approver/);
  });

  it('serves a 2026-07-28 client statelessly too, on either process', async () => {
    const token = await mint(MEMBER);
    for (const web of webs) {
      const client = await connect(token, web, 'modern');
      expect((await client.listTools()).tools.length).toBeGreaterThan(20);
      const page = await call(client, 'list_audits', { client_id: LARGE, limit: 2 });
      expect(page.isError).toBeFalsy();
      expect((page.structuredContent as { rows: unknown[] }).rows).toHaveLength(2);
    }
  });

  it('serves the 1.x SDK’s client, and a 2025-06-18 initialize, statelessly', async () => {
    const token = await mint(MEMBER);
    const v1 = new ClientV1({ name: 'e2e-v1', version: '1.0.0' });
    await v1.connect(
      new TransportV1(url(webs[1] as Runtime), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    const result = (await v1.callTool({
      name: 'list_citations',
      arguments: { client_id: LARGE, limit: 3 },
    })) as {
      structuredContent?: { rows: unknown[] };
    };
    expect(result.structuredContent?.rows).toHaveLength(3);
    await v1.close();
    const res = await fetch(url(webs[0] as Runtime), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'old', version: '1' },
        },
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    const text = await res.text();
    expect(text).toContain('"protocolVersion":"2025-06-18"');
  });

  it('answers no token with 401 and the metadata pointer, a foreign Origin with 403', async () => {
    const web = webs[1] as Runtime;
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const none = await fetch(url(web), { method: 'POST', headers, body });
    expect(none.status).toBe(401);
    const challenge = none.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(
      /^Bearer resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"/,
    );
    const metadata = await fetch(/resource_metadata="([^"]+)"/.exec(challenge)?.[1] ?? '');
    expect(metadata.status).toBe(200);
    expect(await metadata.json()).toMatchObject({
      resource: `http://127.0.0.1:${web.port}/mcp`,
      bearer_methods_supported: ['header'],
    });
    const bad = await fetch(url(web), {
      method: 'POST',
      headers: { ...headers, authorization: 'Bearer gwb_nothing' },
      body,
    });
    expect(bad.status).toBe(401);
    const token = await mint(MEMBER);
    const foreign = await fetch(url(web), {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${token}`, origin: 'https://evil.example' },
      body,
    });
    expect(foreign.status).toBe(403);
    // fetch will not send another Host: node:http will, as a DNS-rebinding page's browser would.
    const rebound = await new Promise<number>((resolve, reject) => {
      const req = request(url(web), {
        method: 'POST',
        headers: { ...headers, authorization: `Bearer ${token}`, host: 'evil.example' },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end(body);
    });
    expect(rebound).toBe(403);
  });

  it('refuses a guest a token', async () => {
    await command('mcp token', GUEST, /Guests cannot/);
    expect(textOf(fleet.slack.ephemerals(CHANNEL, GUEST).at(-1) as FakeMessage)).not.toMatch(/gwb_/);
  });

  it('pages list_keywords over a large client: every row exactly once', async () => {
    const client = await connect(await mint(MEMBER), webs[1]);
    const seen = new Set<string>();
    let cursor: string | undefined;
    let pages = 0;
    let total = 0;
    do {
      const result = await call(client, 'list_keywords', {
        client_id: LARGE,
        limit: 200,
        ...(cursor ? { cursor } : {}),
      });
      expect(result.isError).toBeFalsy();
      const page = result.structuredContent as {
        rows: Structured[];
        next_cursor: string | null;
        total: number;
      };
      total = page.total;
      for (const row of page.rows) {
        const key = JSON.stringify(row);
        expect(seen.has(key)).toBe(false);
        seen.add(key);
      }
      cursor = page.next_cursor ?? undefined;
      pages++;
    } while (cursor && pages < 100);
    expect(total).toBe(KEYWORD_ROWS);
    expect(seen.size).toBe(KEYWORD_ROWS);
    expect(pages).toBe(Math.ceil(KEYWORD_ROWS / 200));
  });

  it('refuses a cursor replayed for another client, and a client outside the person’s channels', async () => {
    const client = await connect(await mint(MEMBER));
    const first = await call(client, 'list_keywords', { client_id: LARGE, limit: 5 });
    const cursor = (first.structuredContent as { next_cursor: string }).next_cursor;
    fleet.slack.simulate.joinChannel('CDENTAL', ADMIN);
    await driver.command('use bright-dental', { user: ADMIN, channel: 'CDENTAL' });
    await fleet.slack.waitFor(
      () => fleet.slack.messages('CDENTAL').find((m) => m.text.includes('now bound to')),
      { what: 'the second binding' },
    );
    const elsewhere = await call(client, 'list_keywords', { client_id: 'bright-dental', limit: 5, cursor });
    expect(elsewhere.isError).toBe(true);
    expect(elsewhere.content[0]?.text).toMatch(/No client `bright-dental`/);
    const unknown = await call(client, 'list_keywords', { client_id: 'no-such-client', limit: 5 });
    expect(unknown.content[0]?.text).toBe(
      elsewhere.content[0]?.text.replace('bright-dental', 'no-such-client'),
    );
    const admin = await connect(await mint(ADMIN));
    const replay = await call(admin, 'list_keywords', { client_id: 'bright-dental', limit: 5, cursor });
    expect(replay.isError).toBe(true);
    expect(replay.content[0]?.text).toMatch(/cursor is not valid/);
    const listed = await call(client, 'list_clients', {});
    expect((listed.structuredContent as { rows: { id: string }[] }).rows.map((r) => r.id)).toEqual([LARGE]);
  });

  it('runs generate_article through the queue and reports it in get_job with docs/gateway-api.md §4.5’s shape', async () => {
    const client = await connect(await mint(MEMBER));
    const keyword = `mcp article ${Date.now()}`;
    const asked = await call(client, 'generate_article', { client_id: LARGE, keyword });
    const ref = asked.structuredContent as { job_id: string; status: string; channel: string };
    expect(ref).toMatchObject({ status: 'queued', channel: CHANNEL });
    let job: Structured | undefined;
    for (let i = 0; i < 100; i++) {
      job = (await call(client, 'get_job', { job_id: ref.job_id })).structuredContent;
      if (job?.status === 'done') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(job).toMatchObject({ status: 'done', action: 'generate_blog', client_id: LARGE });
    const result = job?.result as Structured;
    expect(result).toMatchObject({ ok: true, status: 'draft' });
    expect(typeof result.article_id).toBe('string');
    expect(typeof result.title).toBe('string');
    expect(typeof result.word_count).toBe('number');
    const status = fleet.slack
      .messages(CHANNEL)
      .find((m) => m.text.includes(keyword) || textOf(m).includes(keyword));
    expect(status && textOf(status)).toMatch(/through an assistant/);
  });

  it('deploy_article posts nothing until an approver approves in Slack; the requester’s own click is refused', async () => {
    const client = await connect(await mint(MEMBER));
    const articles = await call(client, 'list_articles', { client_id: LARGE, limit: 1 });
    const article = (articles.structuredContent as { rows: { id: string }[] }).rows[0]?.id as string;
    const postsBefore = fleet.sandbox
      .requests()
      .filter((r) => r.method === 'POST' && r.action === 'deploy_blog').length;
    const readsBefore = fleet.sandbox.requests().length;
    const asked = await call(client, 'deploy_article', { client_id: LARGE, article_id: article });
    const ref = asked.structuredContent as { job_id: string; status: string; message_link: string | null };
    expect(ref.status).toBe('pending_approval');
    // The tool checks the article and the card takes its title from that one read.
    const postReads = fleet.sandbox
      .requests()
      .slice(readsBefore)
      .filter((r) => r.method === 'GET' && r.resource === 'blogs');
    expect(postReads).toHaveLength(1);
    const card = await fleet.slack.waitFor(
      () =>
        fleet.slack.messages(CHANNEL).find((m) => /^Approval/.test(m.text) && textOf(m).includes(article)),
      { what: 'the approval card' },
    );
    expect(textOf(card)).toMatch(/requested by <@UMEMBER> through an assistant/);
    await new Promise((r) => setTimeout(r, 300));
    const deploys = () =>
      fleet.sandbox.requests().filter((r) => r.method === 'POST' && r.action === 'deploy_blog').length;
    expect(deploys()).toBe(postsBefore);
    expect((await call(client, 'get_job', { job_id: ref.job_id })).structuredContent?.status).toBe(
      'pending_approval',
    );
    const seen = fleet.slack.ephemerals(CHANNEL, MEMBER).length;
    await driver.click(card, { actionId: 'approval_approve' }, { user: MEMBER });
    await fleet.slack.waitFor(
      () =>
        fleet.slack
          .ephemerals(CHANNEL, MEMBER)
          .slice(seen)
          .find((m) => /another approver/.test(textOf(m))),
      { what: 'the self-approval refusal' },
    );
    expect(deploys()).toBe(postsBefore);
    await driver.click(card, { actionId: 'approval_approve' }, { user: ADMIN });
    let job: Structured | undefined;
    for (let i = 0; i < 100; i++) {
      job = (await call(client, 'get_job', { job_id: ref.job_id })).structuredContent;
      if (job?.status === 'done') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(job?.status).toBe('done');
    expect(deploys()).toBe(postsBefore + 1);
    const cardUpdates = () =>
      fleet.slack.calls.filter((c) => c.method === 'chat.update' && c.args.ts === card.ts);
    // get_job may tell "done" a moment before the card does.
    await fleet.slack.waitFor(() => cardUpdates().some((c) => /^Approval done/.test(String(c.args.text))), {
      what: 'the card saying done',
    });
    // The card is updated once per state change: approved, then done.
    expect(cardUpdates().map((c) => /^Approval (\w+)/.exec(String(c.args.text))?.[1])).toEqual([
      'approved',
      'done',
    ]);
  });

  it('sends a drafted outreach email only through an approval; a rejection ends it with nothing sent', async () => {
    const client = await connect(await mint(MEMBER));
    const drafted = await call(client, 'generate_outreach_email', {
      client_id: LARGE,
      prospect: `https://prospect.example/mcp-${Date.now()}`,
    });
    const draftJob = drafted.structuredContent?.job_id as string;
    for (let i = 0; i < 100; i++) {
      if ((await call(client, 'get_job', { job_id: draftJob })).structuredContent?.status === 'done') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const sends = () =>
      fleet.sandbox.requests().filter((r) => r.method === 'POST' && r.action === 'send_prospect_email')
        .length;
    const before = sends();
    const noTo = await call(client, 'send_prospect_email', { client_id: LARGE, email_id: draftJob });
    expect(noTo.isError).toBe(true);
    expect(noTo.content[0]?.text).toMatch(/Give to/);
    const asked = await call(client, 'send_prospect_email', {
      client_id: LARGE,
      email_id: draftJob,
      to: 'editor@example.com',
    });
    const ref = asked.structuredContent as { job_id: string; status: string };
    expect(ref.status).toBe('pending_approval');
    const card = await fleet.slack.waitFor(
      () =>
        fleet.slack
          .messages(CHANNEL)
          .find((m) => /^Approval/.test(m.text) && textOf(m).includes('editor@example.com')),
      { what: 'the email’s approval card' },
    );
    expect(textOf(card)).toMatch(/A resource for your readers/);
    await driver.click(card, { actionId: 'approval_reject' }, { user: ADMIN });
    let job: Structured | undefined;
    for (let i = 0; i < 50; i++) {
      job = (await call(client, 'get_job', { job_id: ref.job_id })).structuredContent;
      if (job?.status === 'rejected') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(job).toMatchObject({ status: 'rejected', action: 'send_prospect_email' });
    expect(sends()).toBe(before);
  });

  it('makes one POST of 20 concurrent identical generate_article calls', async () => {
    const client = await connect(await mint(MEMBER));
    const other = await connect(await mint(MEMBER), webs[1]);
    const keyword = `mcp twins ${Date.now()}`;
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(i % 2 ? other : client, 'generate_article', { client_id: LARGE, keyword }),
      ),
    );
    const statuses = answers.map((a) => a.structuredContent?.status);
    expect(statuses.filter((s) => s === 'queued')).toHaveLength(1);
    expect(statuses.filter((s) => s === 'duplicate')).toHaveLength(19);
    const ref = answers.find((a) => a.structuredContent?.status === 'queued')?.structuredContent
      ?.job_id as string;
    for (let i = 0; i < 100; i++) {
      if ((await call(client, 'get_job', { job_id: ref })).structuredContent?.status === 'done') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const posts = fleet.sandbox
      .requests()
      .filter(
        (r) => r.method === 'POST' && r.action === 'generate_blog' && JSON.stringify(r).includes(keyword),
      );
    expect(posts).toHaveLength(1);
  });

  it('asks again for a repeat unless confirm_duplicate, and reports in the channel chosen among the bound ones', async () => {
    const client = await connect(await mint(ADMIN));
    fleet.slack.simulate.joinChannel('CSEO2', ADMIN);
    await driver.command(`use ${LARGE}`, { user: ADMIN, channel: 'CSEO2' });
    await fleet.slack.waitFor(
      () => fleet.slack.messages('CSEO2').find((m) => m.text.includes('now bound to')),
      { what: 'the second channel bound' },
    );
    const topic = `mcp map ${Date.now()}`;
    const first = await call(client, 'generate_topical_map', { client_id: LARGE, topic, channel: 'CSEO2' });
    expect(first.structuredContent).toMatchObject({ status: 'queued', channel: 'CSEO2' });
    const job = first.structuredContent?.job_id as string;
    for (let i = 0; i < 100; i++) {
      if ((await call(client, 'get_job', { job_id: job })).structuredContent?.status === 'done') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const again = await call(client, 'generate_topical_map', { client_id: LARGE, topic });
    expect(again.structuredContent).toMatchObject({ status: 'duplicate', job_id: null });
    expect(again.structuredContent?.earlier).toMatchObject({ topic });
    const confirmed = await call(client, 'generate_topical_map', {
      client_id: LARGE,
      topic,
      confirm_duplicate: true,
    });
    expect(confirmed.structuredContent).toMatchObject({ status: 'queued', channel: CHANNEL });
    const elsewhere = await call(client, 'index_url', {
      client_id: LARGE,
      url: 'https://example.com/x',
      channel: 'CNOPE',
    });
    expect(elsewhere.isError).toBe(true);
    expect(elsewhere.content[0]?.text).toMatch(/not one of this client’s bound channels/);
  });

  it('answers an action with a read-only token 403 insufficient_scope (the spec’s scope step-up)', async () => {
    const token = await mint(MEMBER, true);
    const web = webs[0] as Runtime;
    const refused = await fetch(url(web), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'run_seo_audit', arguments: { client_id: LARGE, url: 'https://example.com/' } },
      }),
    });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toMatch(
      /^Bearer error="insufficient_scope", scope="write", resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp", error_description="[^"]*\/gateway mcp token/,
    );
    expect(await refused.json()).toMatchObject({ error: { code: -32003 }, id: 7 });
    const client = await connect(token);
    expect((await call(client, 'list_audits', { client_id: LARGE, limit: 1 })).isError).toBeFalsy();
  });

  it('refuses a revoked token on both web processes at once', async () => {
    const token = await mint(MEMBER);
    const list = await command('mcp tokens', MEMBER, /active assistant-tool token/);
    // Newest first: the token just minted.
    const id = /`([0-9a-f]{10})`/.exec(textOf(list))?.[1] as string;
    const onBoth = await Promise.all(webs.map((web) => connect(token, web)));
    for (const client of onBoth)
      expect((await call(client, 'list_audits', { client_id: LARGE, limit: 1 })).isError).toBeFalsy();
    await command(`mcp revoke ${id}`, MEMBER, /revoked/);
    const started = Date.now();
    for (const web of webs) {
      const res = await fetch(url(web), {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${token}`,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(res.status).toBe(401);
    }
    expect(Date.now() - started).toBeLessThan(5_000);
    // Someone else's token is not theirs to revoke.
    const admins = await mint(ADMIN);
    expect(admins).toMatch(/^gwb_/);
    await command('mcp revoke 0000000000', OTHER, /no active token/);
  });

  it('counts tool calls by tool and outcome in /metrics', async () => {
    // Each process counts its own: the paging ran on one, the refusals on the other.
    const scrape = async (web: Runtime) => (await fetch(`http://127.0.0.1:${web.port}/metrics`)).text();
    const metrics = (await Promise.all(webs.map(scrape))).join('\n');
    expect(metrics).toMatch(/gateway_bot_mcp_tool_calls_total\{tool="list_keywords",outcome="ok"\} [1-9]/);
    expect(metrics).toMatch(/gateway_bot_mcp_tool_calls_total\{tool="list_keywords",outcome="error"\} [1-9]/);
  });
});
