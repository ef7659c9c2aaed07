/**
 * The assistant tools' job references as a person in Slack sees the same jobs: a job cancelled in Slack, a deploy
 * that names no article the gateway has, a deploy already waiting for its approval. One web process with its
 * worker, the stand-in and the sandbox; one gateway POST a minute, so a second job waits in the queue.
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
  textOf,
} from '../helpers/bot-harness.js';

const CLIENT = 'acme-plumbing';

type Answer = { structuredContent?: Record<string, unknown>; isError?: boolean; content: { text: string }[] };

describe('assistant tools: jobs as Slack sees them', () => {
  let h: Harness;
  let client: Client;

  const mint = (user: string) => mintMcpToken(h, user);

  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as Answer;

  beforeAll(async () => {
    h = await startHarness('e2e-mcp-jobs', { GATEWAY_ACTION_RATE: '1/60s', GATEWAY_APPROVERS: ADMIN });
    h.slack.simulate.joinChannel(CHANNEL, MEMBER);
    await bind(h, CLIENT);
    client = new Client({ name: 'e2e-jobs', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${h.runtime.port}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${await mint(MEMBER)}` } },
      }),
    );
  }, 30_000);

  afterAll(async () => {
    await client?.close().catch(() => {});
    await h?.close();
  });

  it('reports a job cancelled in Slack before it started as cancelled, not as unknown', async () => {
    // The first takes the minute's one POST; the second waits in the queue with a Cancel button.
    await call('generate_article', { client_id: CLIENT, keyword: `mcp first ${Date.now()}` });
    const keyword = `mcp cancelled ${Date.now()}`;
    const asked = await call('generate_article', { client_id: CLIENT, keyword });
    const jobId = asked.structuredContent?.job_id as string;
    expect(asked.structuredContent?.status).toBe('queued');
    expect((await call('get_job', { job_id: jobId })).structuredContent?.status).toBe('queued');
    const status = await h.message((m) => textOf(m).includes(keyword) && textOf(m).includes('job_cancel'));
    await h.driver.click(status, { actionId: 'job_cancel' }, { user: MEMBER });
    await h.message((m) => textOf(m).includes(keyword) && /cancelled by/.test(textOf(m)));
    const job = await call('get_job', { job_id: jobId });
    expect(job.isError).toBeFalsy();
    expect(job.structuredContent).toMatchObject({
      job_id: jobId,
      status: 'cancelled',
      action: 'generate_blog',
      client_id: CLIENT,
      result: null,
    });
    expect(h.posts('generate_blog').filter((p) => JSON.stringify(p).includes(keyword))).toHaveLength(0);
  });

  it('deploy_article answers an article the gateway does not have, or none, in its own words and asks for nothing', async () => {
    const cards = () => h.slack.messages(CHANNEL).filter((m) => /^Approval/.test(m.text)).length;
    const before = cards();
    const unknown = await call('deploy_article', { client_id: CLIENT, article_id: 'blog_nope' });
    expect(unknown.isError).toBe(true);
    expect(unknown.content[0]?.text).toMatch(/no article `blog_nope`/);
    expect(unknown.content[0]?.text).toMatch(/list_articles/);
    expect(unknown.content[0]?.text).not.toMatch(/leave post_id out|\/gateway/);
    const blank = await call('deploy_article', { client_id: CLIENT, article_id: '   ' });
    expect(blank.isError).toBe(true);
    expect(blank.content[0]?.text).toMatch(/Give article_id \(the gateway’s post_id\)/);
    const none = await call('deploy_article', { client_id: CLIENT });
    expect(none.isError).toBe(true);
    expect(none.content[0]?.text).toMatch(/article_id/);
    expect(cards()).toBe(before);
    expect(h.posts('deploy_blog')).toHaveLength(0);
  });

  it('answers a deploy already waiting for its approval with that approval’s reference, which get_job follows', async () => {
    const articles = await call('list_articles', { client_id: CLIENT, limit: 1 });
    const article = (articles.structuredContent as { rows: { id: string }[] }).rows[0]?.id as string;
    const first = await call('deploy_article', { client_id: CLIENT, article_id: article });
    expect(first.structuredContent?.status).toBe('pending_approval');
    const again = await call('deploy_article', { client_id: CLIENT, article_id: article });
    expect(again.structuredContent).toMatchObject({
      status: 'duplicate',
      job_id: first.structuredContent?.job_id,
      message_link: first.structuredContent?.message_link,
      earlier: { state: 'pending', requested_by: MEMBER, fields: { post_id: article } },
    });
    const job = await call('get_job', { job_id: again.structuredContent?.job_id });
    expect(job.structuredContent?.status).toBe('pending_approval');
    expect(h.slack.messages(CHANNEL).filter((m) => /^Approval/.test(m.text))).toHaveLength(1);
    expect(h.posts('deploy_blog')).toHaveLength(0);
  });

  it('keeps a discovery-only action and the client roster admin-only, and tells an admin to bind a channel for a client with none', async () => {
    const member = await call('run_action', {
      client_id: CLIENT,
      action: 'generate_faq',
      fields: { topic: 'x' },
    });
    expect(member.isError).toBeFalsy();
    expect(member.structuredContent).toMatchObject({ status: 'refused', job_id: null });
    expect(String(member.structuredContent?.reason)).toMatch(/admin/i);
    // The roster stays admin-only through the open-ended read too.
    const roster = await call('list_resource', { resource: 'clients' });
    expect(roster.isError).toBe(true);
    expect(roster.content[0]?.text).toMatch(/Only admins can list the agency’s clients/);
    const admin = new Client({ name: 'e2e-jobs-admin', version: '1.0.0' });
    await admin.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${h.runtime.port}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${await mint(ADMIN)}` } },
      }),
    );
    const unbound = (await admin.callTool({
      name: 'index_url',
      arguments: { client_id: 'bright-dental', url: 'https://bright-dental.example/x' },
    })) as Answer;
    await admin.close();
    expect(unbound.isError).toBe(true);
    expect(unbound.content[0]?.text).toMatch(/bound to no Slack channel.*bind one/);
    expect(h.posts('generate_faq')).toHaveLength(0);
    expect(h.posts('index_url')).toHaveLength(0);
  });

  it('answers an identical send duplicate even when Slack refuses the person the note in the channel', async () => {
    const email = { client_id: CLIENT, to: 'desk@example.com', subject: 'Hello', html: '<p>Hello</p>' };
    const first = await call('send_prospect_email', email);
    expect(first.structuredContent?.status).toBe('pending_approval');
    // As chat.postEphemeral answers for someone not in the channel (an admin's token reaches every channel).
    h.slack.simulate.outage(['chat.postEphemeral']);
    try {
      const again = await call('send_prospect_email', email);
      expect(again.isError).toBeFalsy();
      expect(again.structuredContent).toMatchObject({
        status: 'duplicate',
        job_id: first.structuredContent?.job_id,
      });
    } finally {
      h.slack.simulate.restore();
    }
    expect(h.posts('send_prospect_email')).toHaveLength(0);
  }, 20_000);
});
