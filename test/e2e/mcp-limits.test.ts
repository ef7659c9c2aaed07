/**
 * The assistant-tool server's limits: the per-token rate limit on tool calls (429 with Retry-After), the body cap,
 * and a person outside every bound channel, who reaches no client at all.
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

const OUTSIDER = 'UOTHER';

describe('assistant tools: limits', () => {
  let h: Harness;
  let endpoint: string;

  const mint = (user: string) => mintMcpToken(h, user);

  const post = (token: string, body: string) =>
    fetch(endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${token}`,
      },
      body,
    });
  const toolCall = (id: number) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'list_audits', arguments: { client_id: 'bright-dental', limit: 1 } },
    });

  beforeAll(async () => {
    // Who someone is stands 300 ms here (5 minutes by default), so a change shows within the test.
    h = await startHarness(
      'e2e-mcp-limits',
      // Each test mints its own tokens: more than a person may mint in a minute by default.
      { MCP_RATE: '3/60s', MCP_MINT_RATE: '1000/1s' },
      { userCacheMs: 300 },
    );
    endpoint = `http://127.0.0.1:${h.runtime.port}/mcp`;
    h.slack.simulate.joinChannel(CHANNEL, MEMBER);
    await bind(h, 'bright-dental');
  }, 30_000);

  afterAll(async () => {
    await h?.close();
  });

  it('answers the fourth tool call of a minute with 429 and Retry-After; listing tools is not counted', async () => {
    const token = await mint(MEMBER);
    const list = JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' });
    for (let i = 0; i < 5; i++) expect((await post(token, list)).status).toBe(200);
    for (let i = 1; i <= 3; i++) expect((await post(token, toolCall(i))).status).toBe(200);
    const limited = await post(token, toolCall(4));
    expect(limited.status).toBe(429);
    const wait = Number(limited.headers.get('retry-after'));
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(60);
    // Another token of the same person has its own allowance.
    expect((await post(await mint(MEMBER), toolCall(5))).status).toBe(200);
  });

  it('refuses a body over the cap with 413', async () => {
    const token = await mint(MEMBER);
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
