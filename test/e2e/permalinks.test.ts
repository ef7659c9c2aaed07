/**
 * One permalink rule on every surface: the assistant's message_link, the Home tab's link to the card and the
 * "already asked" pointer all name the same message the same way, at the workspace's own URL (auth.test).
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

type Answer = { structuredContent?: Record<string, unknown>; isError?: boolean; content: { text: string }[] };

describe('permalinks', () => {
  let h: Harness;
  let client: Client;

  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as Answer;

  beforeAll(async () => {
    h = await startHarness('e2e-permalinks', { GATEWAY_APPROVERS: ADMIN });
    h.slack.simulate.joinChannel(CHANNEL, MEMBER);
    await bind(h, 'acme-plumbing');
    client = new Client({ name: 'e2e-permalinks', version: '1.0.0' });
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

  it('links the card the same way for the assistant and on Home, at the workspace’s URL', async () => {
    const articles = await call('list_articles', { client_id: 'acme-plumbing', limit: 1 });
    const article = (articles.structuredContent as { rows: { id: string }[] }).rows[0]?.id as string;
    const asked = await call('deploy_article', { client_id: 'acme-plumbing', article_id: article });
    expect(asked.structuredContent?.status).toBe('pending_approval');
    const card = h.slack.messages(CHANNEL).find((m) => /^Approval/.test(m.text));
    const expected = `https://${h.slack.teamDomain}.slack.com/archives/${CHANNEL}/p${card?.ts.replace('.', '')}`;
    expect(asked.structuredContent?.message_link).toBe(expected);

    await h.driver.homeOpened({ user: ADMIN });
    const home = await h.slack.waitFor(() => h.slack.home(ADMIN), {
      what: 'the Home tab',
      timeoutMs: 10_000,
    });
    expect(JSON.stringify(home.view.blocks)).toContain(`<${expected}|the card>`);
    expect(JSON.stringify(home.view.blocks)).not.toContain('https://slack.com/archives');
  });
});
