/**
 * `list_reviews`, the assistant tool that reads reviews: the gateway's sentiment filter, a rating bound and a
 * first day applied by the bot, paged behind signed cursors like every read tool, and only for a client the
 * token's person reaches. One web process, the stand-in and the sandbox.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bind, CHANNEL, type Harness, MEMBER, mintMcpToken, startHarness } from '../helpers/bot-harness.js';

type Answer = { structuredContent?: Record<string, unknown>; isError?: boolean; content: { text: string }[] };
type Review = { id: string; rating: number; sentiment: string; created_at: string };

describe('assistant tools: list_reviews', () => {
  let h: Harness;
  let client: Client;

  const call = async (args: Record<string, unknown>) =>
    (await client.callTool({ name: 'list_reviews', arguments: args })) as Answer;
  const rowsOf = (a: Answer) => (a.structuredContent?.rows ?? []) as Review[];

  beforeAll(async () => {
    h = await startHarness('e2e-mcp-reviews');
    h.slack.simulate.joinChannel(CHANNEL, MEMBER);
    await bind(h, 'acme-plumbing');
    client = new Client({ name: 'e2e-reviews', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${h.runtime.port}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${await mintMcpToken(h, MEMBER)}` } },
      }),
    );
  }, 30_000);

  afterAll(async () => {
    await client?.close().catch(() => {});
    await h?.close();
  });

  it('reads reviews newest first, by sentiment and a rating bound, and pages behind a cursor', async () => {
    const args = { client_id: 'acme-plumbing', sentiment: 'negative', rating_at_most: 1, limit: 5 };
    const first = await call(args);
    expect(first.isError, first.content[0]?.text).toBeFalsy();
    expect(first.structuredContent).toMatchObject({ resource: 'reviews', client_id: 'acme-plumbing' });
    const rows = rowsOf(first);
    expect(rows).toHaveLength(5);
    for (const row of rows) {
      expect(row.sentiment).toBe('negative');
      expect(row.rating).toBeLessThanOrEqual(1);
    }
    const dates = rows.map((r) => r.created_at);
    expect(dates).toEqual([...dates].sort().reverse());
    const cursor = first.structuredContent?.next_cursor as string;
    expect(cursor).toEqual(expect.any(String));
    const second = await call({ ...args, cursor });
    const ids = new Set(rows.map((r) => r.id));
    expect(rowsOf(second).length).toBeGreaterThan(0);
    expect(rowsOf(second).some((r) => ids.has(r.id))).toBe(false);
    // A cursor is bound to its filters: another rating bound does not continue this list.
    const other = await call({ ...args, rating_at_most: 2, cursor });
    expect(other.isError).toBe(true);
    expect(other.content[0]?.text).toMatch(/cursor is not valid/);
  });

  it('keeps reviews rated at least N stars since a day', async () => {
    const newest = rowsOf(await call({ client_id: 'acme-plumbing', limit: 1 }))[0];
    const since = (newest?.created_at ?? '').slice(0, 10);
    const answer = await call({ client_id: 'acme-plumbing', rating_at_least: 4, since, limit: 50 });
    const rows = rowsOf(answer);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.rating).toBeGreaterThanOrEqual(4);
      expect(row.created_at.slice(0, 10) >= since).toBe(true);
    }
  });

  it('refuses a client the person does not reach, as if it did not exist', async () => {
    const answer = await call({ client_id: 'bright-dental' });
    expect(answer.isError).toBe(true);
    expect(answer.content[0]?.text).toMatch(/No client `bright-dental`/);
    expect(answer.structuredContent).toBeUndefined();
  });

  it('refuses a rating out of 1–5 and a sentiment the gateway does not have', async () => {
    for (const bad of [{ rating_at_most: 6 }, { sentiment: 'angry' }, { since: 'yesterday' }]) {
      const answer = await call({ client_id: 'acme-plumbing', ...bad });
      expect(answer.isError, JSON.stringify(bad)).toBe(true);
    }
  });
});
