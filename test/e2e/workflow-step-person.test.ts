/**
 * Whom a Workflow Builder step acts as: only the person Slack attests (a `user_context` input, filled from the
 * trigger's "Person who used this workflow", or an interactivity input's interactor), never a user id typed by
 * the workflow's author; and where that person may act, as Slack tells it at the step, not as a cached list.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeFunctionRun } from '../../src/local/fake-slack/index.js';
import { ADMIN, bind, CHANNEL, type Harness, MEMBER, startHarness, textOf } from '../helpers/bot-harness.js';

const SECOND = 'CSECOND';
const SITE = 'https://acme-plumbing.example/person';

let h: Harness;
const as = (user: string) => h.slack.functions.userContext(user);

async function ended(run: FakeFunctionRun) {
  return h.slack.waitFor(() => h.slack.functions.run(run.executionId)?.ended, {
    what: `step ${run.callbackId} to end`,
    timeoutMs: 15_000,
  });
}

const audits = (url: string) => h.posts('seo_audit').filter((p) => p.fields?.url === url).length;

beforeAll(async () => {
  h = await startHarness('e2e-wf-person');
  h.slack.simulate.joinChannel(CHANNEL, MEMBER);
  await bind(h, 'acme-plumbing');
  await bind(h, 'acme-plumbing', SECOND);
});
afterAll(async () => {
  await h?.close();
});

describe('the person a step acts as', () => {
  it('refuses a step whose person is a typed user id, naming the input to set, and runs nothing', async () => {
    // An author who may build workflows names the admin, in a channel the author is not in.
    const { run } = await h.driver.functionExecuted('seo_audit', {
      channel_id: SECOND,
      user_id: ADMIN,
      url: `${SITE}/typed`,
    });
    const end = await ended(run);
    expect(end.ok).toBe(false);
    expect(end.ok ? '' : end.error).toMatch(/Person who used this workflow/);
    expect(end.ok ? '' : end.error).toContain('`user`');
    expect(audits(`${SITE}/typed`)).toBe(0);
  });

  it('refuses a user_context without Slack’s secret, as a value an author typed', async () => {
    const { run } = await h.driver.functionExecuted('seo_audit', {
      channel_id: CHANNEL,
      user: { id: ADMIN },
      url: `${SITE}/no-secret`,
    });
    const end = await ended(run);
    expect(end.ok ? '' : end.error).toMatch(/Person who used this workflow/);
    expect(audits(`${SITE}/no-secret`)).toBe(0);
  });

  it('acts as the attested person, not as a typed user id beside it', async () => {
    // bob uses the workflow; its author also typed the admin's id: bob is not in SECOND, so it is refused as bob.
    const { run } = await h.driver.functionExecuted('seo_audit', {
      channel_id: SECOND,
      user: as(MEMBER),
      user_id: ADMIN,
      url: `${SITE}/both`,
    });
    const end = await ended(run);
    expect(end.ok ? '' : end.error).toMatch(new RegExp(`<@${MEMBER}> is not a member of <#${SECOND}>`));
    expect(audits(`${SITE}/both`)).toBe(0);
  });

  it('takes an interactivity input’s interactor as the person', async () => {
    const url = `${SITE}/interactor`;
    const { run } = await h.driver.functionExecuted('seo_audit', {
      channel_id: CHANNEL,
      interactivity: { interactivity_pointer: '1234.5678', interactor: as(MEMBER) },
      url,
    });
    const end = await ended(run);
    expect(end).toMatchObject({ ok: true, outputs: { status: 'done' } });
    expect(h.posts('seo_audit').filter((p) => p.fields?.url === url)).toHaveLength(1);
  });

  it('does not let the attested person approve their own guarded step', async () => {
    const before = h.slack.messages(CHANNEL).length;
    const deploy = await h.driver.functionExecuted('deploy_blog', {
      channel_id: CHANNEL,
      user: as(ADMIN),
      post_id: 'blog_000240',
    });
    const card = await h.slack.waitFor(
      () =>
        h.slack
          .messages(CHANNEL)
          .slice(before)
          .find((m) => /^Approval/.test(m.text)),
      { what: 'the approval card' },
    );
    expect(textOf(card)).toContain(`<@${ADMIN}>`);
    const refusals = h.slack.ephemerals(CHANNEL, ADMIN).length;
    await h.driver.click(card, { actionId: 'approval_approve' }, { user: ADMIN });
    const refusal = await h.slack.waitFor(() => h.slack.ephemerals(CHANNEL, ADMIN).slice(refusals)[0], {
      what: 'the self-approval refusal',
    });
    expect(textOf(refusal)).toMatch(/You asked for this/);
    await new Promise((r) => setTimeout(r, 300));
    expect(h.slack.functions.run(deploy.run.executionId)?.ended).toBeUndefined();
    expect(h.posts('deploy_blog')).toHaveLength(0);
  });
});

describe('where the person may act', () => {
  it('asks Slack afresh: a channel joined without an event counts, one left without an event does not', async () => {
    // bob's channel list is read (and cached) by a first step in his channel.
    const first = await h.driver.functionExecuted('seo_audit', {
      channel_id: CHANNEL,
      user: as(MEMBER),
      url: `${SITE}/first`,
    });
    expect((await ended(first.run)).ok).toBe(true);
    // bob joins SECOND before the bot hears of it: Slack sends the bot no member_joined_channel.
    h.slack.simulate.joinChannel(SECOND, MEMBER);
    const joined = await h.driver.functionExecuted('seo_audit', {
      channel_id: SECOND,
      user: as(MEMBER),
      url: `${SITE}/joined`,
    });
    expect(await ended(joined.run)).toMatchObject({ ok: true });
    expect(audits(`${SITE}/joined`)).toBe(1);
    // bob leaves SECOND and the member_left_channel is lost: a step there is refused at once.
    h.slack.simulate.leaveChannel(SECOND, MEMBER);
    const left = await h.driver.functionExecuted('seo_audit', {
      channel_id: SECOND,
      user: as(MEMBER),
      url: `${SITE}/left`,
    });
    const end = await ended(left.run);
    expect(end.ok ? '' : end.error).toMatch(new RegExp(`<@${MEMBER}> is not a member of <#${SECOND}>`));
    expect(audits(`${SITE}/left`)).toBe(0);
  });
});
