/**
 * Workflow Builder steps through the stand-in, over both receivers: a `function_executed` event asks for its
 * action through the request layer as its person, and the step ends once, with its outputs or an error a
 * workflow's owner reads, when its job (or its approval) ends.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SlackDriver } from '../../src/local/driver.js';
import type { FakeFunctionRun, FakeMessage } from '../../src/local/fake-slack/index.js';
import { ADMIN, bind, CHANNEL, type Harness, MEMBER, startHarness, textOf } from '../helpers/bot-harness.js';

const UNBOUND = 'CUNBOUND';
const SITE = 'https://acme-plumbing.example/services';

type Transport = 'http' | 'socket';

async function ended(h: Harness, run: FakeFunctionRun) {
  return h.slack.waitFor(() => h.slack.functions.run(run.executionId)?.ended, {
    what: `step ${run.callbackId} to end`,
    timeoutMs: 15_000,
  });
}

const completions = (h: Harness, run: FakeFunctionRun) =>
  h.slack.calls.filter(
    (c) => c.method.startsWith('functions.') && c.args.function_execution_id === run.executionId,
  );

function approvalCard(h: Harness, after: number): FakeMessage | undefined {
  return h.slack
    .messages(CHANNEL)
    .slice(after)
    .find((m) => /^Approval/.test(m.text));
}

describe.each<Transport>(['http', 'socket'])('workflow steps over %s', (transport) => {
  let h: Harness;
  let driver: SlackDriver;
  const step = (action: string, inputs: Record<string, unknown>, again?: FakeFunctionRun) =>
    driver.functionExecuted(action, { channel_id: CHANNEL, user: as(MEMBER), ...inputs }, again);
  const as = (user: string) => h.slack.functions.userContext(user);

  beforeAll(async () => {
    h = await startHarness(
      `e2e-wf-${transport}`,
      transport === 'socket' ? { SLACK_APP_TOKEN: 'xapp-1-wf' } : {},
    );
    driver = transport === 'socket' ? new SlackDriver({ transport: 'socket', slack: h.slack }) : h.driver;
    // A step acts only in a channel its person is in, as a command does (the guest and the other workspace's
    // person are members too: what refuses them is who they are).
    for (const user of [MEMBER, 'UGUEST', 'UEXTERNAL']) h.slack.simulate.joinChannel(CHANNEL, user);
    if (transport === 'http') await bind(h, 'acme-plumbing');
    else {
      await driver.command('use acme-plumbing', { user: ADMIN, channel: CHANNEL });
      await h.message((m) => m.text.includes('now bound to'));
    }
  });
  afterAll(async () => {
    await h?.close();
  });

  it('completes an audit step with its record id, status and summary, and posts the usual result', async () => {
    const { run, status } = await step('seo_audit', { url: SITE });
    expect(status).toBe(200);
    const end = await ended(h, run);
    expect(end.ok).toBe(true);
    const outputs = end.ok ? end.outputs : {};
    expect(outputs.status).toBe('done');
    expect(String(outputs.record_id)).not.toBe('');
    expect(String(outputs.summary)).toMatch(/SEO audit/);
    expect(h.posts('seo_audit').length).toBe(1);
    // The result card went to the bound channel, as a command's would.
    await h.message((m) => m.text.includes('SEO audit') && /done/i.test(textOf(m)));
    // The completion used the run's own token (the stand-in refuses any other), once.
    expect(completions(h, run).map((c) => c.ok)).toEqual([true]);
  });

  it('feeds a generated post id to a deploy step, which completes only after an approver’s click', async () => {
    const generated = await step('generate_blog', { keyword: `workflow ${transport} drains` });
    const gen = await ended(h, generated.run);
    expect(gen.ok).toBe(true);
    const postId = gen.ok ? String(gen.outputs.post_id) : '';
    expect(postId).not.toBe('');
    const before = h.slack.messages(CHANNEL).length;
    const deploy = await step('deploy_blog', { post_id: postId });
    const card = await h.slack.waitFor(() => approvalCard(h, before), { what: 'the approval card' });
    await new Promise((r) => setTimeout(r, 300));
    expect(h.slack.functions.run(deploy.run.executionId)?.ended).toBeUndefined();
    expect(h.posts('deploy_blog').length).toBe(0);
    await driver.click(card, { actionId: 'approval_approve' }, { user: ADMIN });
    const end = await ended(h, deploy.run);
    expect(end).toMatchObject({ ok: true, outputs: { status: 'done' } });
    expect(h.posts('deploy_blog').map((p) => p.fields?.post_id)).toEqual([postId]);
  });

  it('fails a rejected deploy step, naming who rejected it', async () => {
    const before = h.slack.messages(CHANNEL).length;
    const deploy = await step('deploy_blog', { post_id: await somePost(h) });
    const card = await h.slack.waitFor(() => approvalCard(h, before), { what: 'the approval card' });
    await driver.click(card, { actionId: 'approval_reject' }, { user: ADMIN });
    const end = await ended(h, deploy.run);
    expect(end.ok).toBe(false);
    expect(end.ok ? '' : end.error).toMatch(new RegExp(`rejected by <@${ADMIN}>`));
  });

  it('fails a step run as a guest, or as someone of another workspace', async () => {
    const { run } = await driver.functionExecuted('seo_audit', {
      channel_id: CHANNEL,
      user: as('UGUEST'),
      url: SITE,
    });
    const end = await ended(h, run);
    expect(end.ok ? '' : end.error).toMatch(/Guests cannot use/);
    const other = await driver.functionExecuted('seo_audit', {
      channel_id: CHANNEL,
      user: as('UEXTERNAL'),
      url: SITE,
    });
    const otherEnd = await ended(h, other.run);
    expect(otherEnd.ok ? '' : otherEnd.error).toMatch(/only for people of the workspace/);
  });

  it('keeps the run’s token out of job data and never in clear in Redis, and drops it once the step ended', async () => {
    const { run } = await step('seo_audit', { url: `${SITE}/token` });
    const jobKey = `wf-${run.executionId}`;
    let job = await h.runtime.services.queue.findJob(jobKey);
    for (let i = 0; !job && i < 200; i++) {
      await new Promise((r) => setTimeout(r, 25));
      job = await h.runtime.services.queue.findJob(jobKey);
    }
    expect(job).toBeDefined();
    expect(JSON.stringify(job?.data)).not.toContain(run.token);
    await ended(h, run);
    const redis = h.runtime.services.redis;
    const keys = await redis.keys(`${h.prefix}*`);
    const values = await Promise.all(
      keys.map(async (key) => {
        const type = await redis.type(key);
        if (type === 'string') return (await redis.get(key)) ?? '';
        if (type === 'hash') return JSON.stringify(await redis.hgetall(key));
        return '';
      }),
    );
    expect(values.filter((v) => v.includes(run.token))).toEqual([]);
    // The stand-in records the end as Slack answers; the bot drops the token once it has that answer.
    const tokenKey = `${h.prefix}:wfstep:token:${run.executionId}`;
    for (let i = 0; (await redis.exists(tokenKey)) && i < 100; i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(await redis.exists(tokenKey)).toBe(0);
  });

  it('fails a step whose person is not a member of its channel', async () => {
    const { run } = await step('seo_audit', { url: SITE, user: as('UOTHER') });
    const end = await ended(h, run);
    expect(end.ok ? '' : end.error).toMatch(/<@UOTHER> is not a member of <#CSEO>/);
    expect(h.posts('seo_audit').filter((p) => p.fields?.url === SITE).length).toBe(1);
  });

  it('fails a step for an unbound channel with “bind the channel first”', async () => {
    const { run } = await step('seo_audit', { url: SITE, channel_id: UNBOUND });
    const end = await ended(h, run);
    expect(end.ok ? '' : end.error).toMatch(/bind the channel first/);
  });

  it('fails a step with a bad input, naming the field', async () => {
    const { run } = await step('seo_audit', { url: 'not a url' });
    const end = await ended(h, run);
    expect(end.ok ? '' : end.error).toMatch(/url: /);
  });

  it('retries a gateway 5xx and completes the step once', async () => {
    const posted = h.posts('seo_audit').length;
    h.sandbox.failNext('500', { method: 'POST', action: 'seo_audit' });
    const { run } = await step('seo_audit', { url: `${SITE}/retry` });
    const end = await ended(h, run);
    expect(end.ok).toBe(true);
    expect(h.posts('seo_audit').length - posted).toBe(2);
    await new Promise((r) => setTimeout(r, 300));
    expect(completions(h, run).map((c) => c.ok)).toEqual([true]);
  });

  it('runs nothing twice for a redelivered function_executed', async () => {
    const posted = h.posts('seo_audit').length;
    const first = await step('seo_audit', { url: `${SITE}/again` });
    await step('seo_audit', {}, first.run);
    await ended(h, first.run);
    await step('seo_audit', {}, first.run);
    await new Promise((r) => setTimeout(r, 500));
    expect(h.posts('seo_audit').length - posted).toBe(1);
    expect(completions(h, first.run).map((c) => c.ok)).toEqual([true]);
  });
});

describe('steps that never run: an approval that expires, a job cancelled while it waits', () => {
  let h: Harness;
  const as = (user: string) => h.slack.functions.userContext(user);
  beforeAll(async () => {
    // One POST a minute: a second job waits in the queue, with its Cancel button.
    h = await startHarness('e2e-wf-expiry', { GATEWAY_APPROVAL_TTL: '2s', GATEWAY_ACTION_RATE: '1/60s' });
    h.slack.simulate.joinChannel(CHANNEL, MEMBER);
    await bind(h, 'acme-plumbing');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('fails the step saying it expired, and nothing is deployed', async () => {
    const before = h.slack.messages(CHANNEL).length;
    const { run } = await h.driver.functionExecuted('deploy_blog', {
      channel_id: CHANNEL,
      user: as(MEMBER),
      post_id: await somePost(h),
    });
    await h.slack.waitFor(() => approvalCard(h, before), { what: 'the approval card' });
    const end = await ended(h, run);
    expect(end.ok ? '' : end.error).toMatch(/expired: no approver answered/);
    expect(h.posts('deploy_blog')).toEqual([]);
  });

  it('fails a step whose queued job is cancelled, naming who cancelled it', async () => {
    const step = (url: string) =>
      h.driver.functionExecuted('seo_audit', { channel_id: CHANNEL, user: as(MEMBER), url });
    await step(`${SITE}/first`);
    const { run } = await step(`${SITE}/waits`);
    const status = await h.message((m) => textOf(m).includes('/waits') && textOf(m).includes('job_cancel'));
    await h.driver.click(status, { actionId: 'job_cancel' }, { user: MEMBER });
    const end = await ended(h, run);
    expect(end.ok ? '' : end.error).toMatch(new RegExp(`cancelled by <@${MEMBER}> before it started`));
    expect(h.posts('seo_audit').filter((p) => String(p.fields?.url).endsWith('/waits'))).toEqual([]);
  });
});

async function somePost(h: Harness): Promise<string> {
  const page = await h.runtime.services.gateway.read('blogs', { clientId: 'acme-plumbing', limit: 1 });
  return String(page.data[0]?.id);
}
