/**
 * The assistant-tool server's limits: every JSON-RPC message counts against MCP_RATE, per token and per person
 * (429 with Retry-After); batches are refused; the body cap; a person outside every bound channel reaches no
 * client at all.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN,
  bind,
  CHANNEL,
  type Harness,
  MEMBER,
  mintMcpToken,
  startHarness,
} from '../helpers/bot-harness.js';
import { mcpPost, toolCallBody } from '../helpers/mcp-post.js';

const OUTSIDER = 'UOTHER';
const COUNTED = 'UCOUNTED';

describe('assistant tools: limits', () => {
  let h: Harness;
  let endpoint: string;

  const mint = (user: string) => mintMcpToken(h, user);
  const post = (token: string, body: string) => mcpPost(endpoint, token, body);
  const toolCall = (id: number) => toolCallBody(id, 'list_audits', { client_id: 'bright-dental', limit: 1 });

  beforeAll(async () => {
    // Who someone is stands 300 ms here (5 minutes by default), so a change shows within the test.
    h = await startHarness(
      'e2e-mcp-limits',
      // Each test mints its own tokens: more than a person may mint in a minute by default.
      // An hour's window: the window is aligned to the clock, and a minute's could turn over mid-test.
      { MCP_RATE: '6/1h', MCP_MINT_RATE: '1000/1s' },
      { userCacheMs: 300 },
    );
    endpoint = `http://127.0.0.1:${h.runtime.port}/mcp`;
    h.slack.simulate.joinChannel(CHANNEL, MEMBER);
    h.slack.simulate.joinChannel(CHANNEL, COUNTED);
    await bind(h, 'bright-dental');
  }, 30_000);

  afterAll(async () => {
    await h?.close();
  });

  it('counts every message against the limit, listing tools too, and one allowance for all of a person’s tokens', async () => {
    const first = await mint(COUNTED);
    const list = JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' });
    for (let i = 0; i < 3; i++) expect((await post(first, list)).status).toBe(200);
    for (let i = 1; i <= 3; i++) expect((await post(first, toolCall(i))).status).toBe(200);
    const limited = await post(first, list);
    expect(limited.status).toBe(429);
    const wait = Number(limited.headers.get('retry-after'));
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(3_600);
    // A fresh token of the same person buys no more calls: the person's allowance is spent.
    const second = await mint(COUNTED);
    const again = await post(second, toolCall(7));
    expect(again.status).toBe(429);
    expect(await again.text()).toMatch(/for this person/);
    // Someone else's allowance is their own.
    expect((await post(await mint(MEMBER), toolCall(8))).status).toBe(200);
  });

  it('refuses a JSON-RPC batch with a JSON-RPC error, running none of it', async () => {
    const token = await mint(ADMIN);
    const batch = JSON.stringify(
      Array.from({ length: 3 }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'tools/list' })),
    );
    const refused = await post(token, batch);
    expect(refused.status).toBe(400);
    const body = (await refused.json()) as { jsonrpc: string; error: { code: number; message: string } };
    expect(body.jsonrpc).toBe('2.0');
    expect(body.error.code).toBe(-32600);
    expect(body.error.message).toMatch(/Batches are not supported/);
  });

  it('refuses a body over the cap with 413', async () => {
    const token = await mint(ADMIN);
    const huge = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: { pad: 'x'.repeat(1_100_000) },
    });
    expect((await post(token, huge)).status).toBe(413);
  });

  it('gives a person in no bound channel no client, and says a client it names does not exist', async () => {
    const client = new Client({ name: 'outsider', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(endpoint), {
        requestInit: { headers: { authorization: `Bearer ${await mint(OUTSIDER)}` } },
      }),
    );
    const listed = (await client.callTool({ name: 'list_clients', arguments: {} })) as {
      structuredContent?: { rows: unknown[] };
    };
    expect(listed.structuredContent?.rows).toEqual([]);
    const read = (await client.callTool({
      name: 'list_keywords',
      arguments: { client_id: 'bright-dental' },
    })) as { isError?: boolean; content: { text: string }[] };
    expect(read.isError).toBe(true);
    expect(read.content[0]?.text).toMatch(/No client `bright-dental`/);
    const act = (await client.callTool({
      name: 'generate_article',
      arguments: { client_id: 'bright-dental', keyword: 'outsider' },
    })) as { isError?: boolean; content: { text: string }[] };
    expect(act.isError).toBe(true);
    expect(h.posts('generate_blog')).toHaveLength(0);
    await client.close();
    // An admin reaches every client, in its channel or not.
    const admin = await post(await mint(ADMIN), toolCall(1));
    expect(admin.status).toBe(200);
    expect(await admin.text()).toContain('audit_');
  });

  it('takes a token’s power away once its person is made a guest, or leaves the channel', async () => {
    const token = await mint(MEMBER);
    expect((await post(token, toolCall(1))).status).toBe(200);
    h.slack.simulate.leaveChannel(CHANNEL, MEMBER);
    await new Promise((r) => setTimeout(r, 400));
    const left = await post(token, toolCall(2));
    expect(await left.text()).toMatch(/No client `bright-dental`/);
    h.slack.simulate.joinChannel(CHANNEL, MEMBER);
    h.slack.simulate.addUser({ id: MEMBER, name: 'bob', is_restricted: true });
    await new Promise((r) => setTimeout(r, 400));
    const guest = await post(token, toolCall(3));
    expect(guest.status).toBe(403);
    expect(await guest.text()).toMatch(/Guests cannot use the gateway bot/);
  });
});
