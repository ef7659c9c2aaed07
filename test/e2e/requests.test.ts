/**
 * The request layer on its own: a request with no slash command, form or button behind it (as an
 * approval, a digest or an assistant tool will make one) runs the same checks and reports to its reply target.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActionRequest } from '../../src/requests/request.js';
import { slackReplyTarget } from '../../src/slack/reply-target.js';
import { ADMIN, bind, CHANNEL, type Harness, MEMBER, startHarness, textOf } from '../helpers/bot-harness.js';

let h: Harness;
let n = 0;

beforeAll(async () => {
  h = await startHarness('e2e-requests');
  await bind(h, 'harbor-law');
});
afterAll(async () => {
  await h?.close();
});

const request = (more: Partial<ActionRequest> = {}): ActionRequest => ({
  requester: MEMBER,
  clientId: 'harbor-law',
  action: 'seo_audit',
  fields: { url: `https://harbor-law.example/requests-${++n}` },
  replyTo: slackReplyTarget(CHANNEL),
  requestKey: `test-${n}-${Date.now()}`,
  ...more,
});
const submit = (r: ActionRequest) => h.runtime.services.requests.submit(r);
const refusalCode = async (r: ActionRequest) => {
  const result = await submit(r);
  return result.kind === 'refused' ? result.error.code : result.kind;
};

describe('asking for an action without Slack', () => {
  it('queues a job whose result reaches the reply target’s thread, and the gateway gets one POST', async () => {
    const r = request();
    const before = h.posts('seo_audit').length;
    const result = await submit(r);
    expect(result).toMatchObject({ kind: 'queued', jobKey: r.requestKey });
    const { thread } = await h.settled(
      (m) => m.text.includes(String(r.fields.url)) && /done|:white_check_mark:/.test(textOf(m)),
    );
    expect(thread.length).toBeGreaterThan(0);
    expect(h.posts('seo_audit').length).toBe(before + 1);
    const job = await h.runtime.services.queue.findJob(r.requestKey);
    expect(job?.data.replyTo).toEqual({ kind: 'slack', channel: CHANNEL });
  });

  it('the same request twice is one job: the second says repeat and leaves no second status message', async () => {
    const r = request();
    const [first, second] = [await submit(r), await submit(r)];
    expect(first.kind).toBe('queued');
    expect(second).toEqual({ kind: 'repeat', jobKey: r.requestKey });
    await h.settled(
      (m) => m.text.includes(String(r.fields.url)) && /done|:white_check_mark:/.test(textOf(m)),
    );
    expect(h.slack.messages(CHANNEL).filter((m) => m.text.includes(String(r.fields.url)))).toHaveLength(1);
  });

  it('refuses, with nothing posted, an unknown action, an unbound channel, another client and a guarded action', async () => {
    const messages = h.slack.messages(CHANNEL).length;
    expect(await refusalCode(request({ action: 'no_such_action' }))).toBe('unavailable');
    expect(await refusalCode(request({ replyTo: slackReplyTarget('CNOWHERE') }))).toBe('channel_not_bound');
    expect(await refusalCode(request({ clientId: 'acme-plumbing' }))).toBe('wrong_client');
    const deploy = { action: 'deploy_blog', fields: { post_id: 'blog_0001' } };
    expect(await refusalCode(request(deploy))).toBe('action_guarded');
    expect(h.slack.messages(CHANNEL).length).toBe(messages);
    expect(h.posts('deploy_blog')).toHaveLength(0);
  });

  it('refuses a deploy without a post id even when it claims an approval, saying what to give and where to find it', async () => {
    const messages = h.slack.messages(CHANNEL).length;
    const result = await submit(
      request({ action: 'deploy_blog', fields: {}, approval: { id: 'appr-none', state: 'approved' } }),
    );
    expect(result.kind).toBe('refused');
    if (result.kind !== 'refused') return;
    expect(result.error.code).toBe('bad_arguments');
    expect(result.error.message).toBe(
      'Blog deploy needs its post (post_id), so nothing was asked for or run.',
    );
    const { hint, usage } = (result.error as { options: { hint?: string; usage?: string } }).options;
    expect(hint).toContain('`/gateway blogs` lists the posts');
    expect(usage).toBe('/gateway deploy <post_id>');
    expect(h.slack.messages(CHANNEL).length).toBe(messages);
    expect(h.posts('deploy_blog')).toHaveLength(0);
  });

  it('asks before a second identical generation and parks the request for "Generate another"', async () => {
    const fields = { topic: 'probate for requests' };
    const first = await submit(request({ action: 'generate_topical_map', fields, requester: ADMIN }));
    expect(first.kind).toBe('queued');
    const second = await submit(request({ action: 'generate_topical_map', fields }));
    expect(second.kind).toBe('ask');
    if (second.kind !== 'ask') return;
    const parked = await h.runtime.services.requests.takePending(second.question.pendingId);
    expect(parked).toMatchObject({ action: 'generate_topical_map', fields, requester: MEMBER });
    expect(await h.runtime.services.requests.takePending(second.question.pendingId)).toBeUndefined();
  });

  it('admits who asks for what where once, with the refusals a request would give', async () => {
    const { requests, catalogue } = h.runtime.services;
    const entry = (await catalogue()).byAction('seo_audit');
    const deploy = (await catalogue()).byAction('deploy_blog');
    if (!entry || !deploy) throw new Error('the sandbox lists seo_audit and deploy_blog');
    const code = (admission: Parameters<typeof requests.admit>[0]) =>
      requests.admit(admission).then(
        () => 'admitted',
        (error: { code: string }) => error.code,
      );
    expect(await code({ requester: MEMBER, entry, channel: 'CNOWHERE' })).toBe('channel_not_bound');
    expect(await code({ requester: MEMBER, entry, channel: CHANNEL, clientId: 'acme-plumbing' })).toBe(
      'wrong_client',
    );
    expect(await code({ requester: MEMBER, entry: deploy, channel: CHANNEL })).toBe('action_guarded');
    const admitted = await requests.admit({
      requester: MEMBER,
      entry,
      channel: CHANNEL,
      clientId: 'harbor-law',
    });
    expect(admitted.binding).toMatchObject({ channel: CHANNEL, clientId: 'harbor-law' });
  });

  it('takes an admission as it is: a request admitted with its binding read already reads none again', async () => {
    const { requests, catalogue } = h.runtime.services;
    const entry = (await catalogue()).byAction('seo_audit');
    if (!entry) throw new Error('the sandbox lists seo_audit');
    // A channel with no binding in Redis: only the admission says it is bound, so a second read would refuse.
    const binding = {
      channel: 'CADMITTED',
      clientId: 'harbor-law',
      clientLabel: 'Harbor Law',
      boundBy: ADMIN,
      boundAt: '',
    };
    const admitted = await requests.admit({ requester: MEMBER, entry, binding });
    const url = `https://harbor-law.example/admitted-${Date.now()}`;
    const result = await requests.submitAdmitted(admitted, {
      fields: { url },
      replyTo: slackReplyTarget('CADMITTED'),
      requestKey: `test-admitted-${Date.now()}`,
    });
    expect(result.kind).toBe('queued');
    await h.settled((m) => m.text.includes(url) && /done|:white_check_mark:/.test(textOf(m)), 'CADMITTED');
    await expect(
      requests.submitAdmitted(admitted, {
        fields: { url },
        replyTo: slackReplyTarget(CHANNEL),
        requestKey: 'x',
      }),
    ).rejects.toThrow('admitted in');
  });
});
