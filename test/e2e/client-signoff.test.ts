/**
 * Client sign-off in a Slack Connect channel: the channel's policy and its client's named approvers, frozen into
 * each approval; a client approver (erin, of the client's workspace) may approve or reject that client's cards in
 * that channel, and nobody else of another workspace may (frank, of a third). All through the real bot, the Slack
 * stand-in and the sandbox gateway.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../../src/local/fake-slack/index.js';
import { signSlackRequest } from '../../src/local/signing.js';
import {
  ADMIN,
  bind,
  CHANNEL,
  type Harness,
  MEMBER,
  SIGNING_SECRET,
  startHarness,
  textOf,
} from '../helpers/bot-harness.js';
import { testRedis } from '../helpers/redis.js';

const ERIN = 'UEXTERNAL'; // the client's workspace, T0PARTNER
const FRANK = 'UFRANK'; // a third workspace, T0THIRD
const APPROVER = 'UCAROLINE'; // a second agency approver
const OTHER_CHANNEL = 'COTHER';

const quiet = (ms = 300) => new Promise((r) => setTimeout(r, ms));

describe('client sign-off', () => {
  let h: Harness;
  const post = (i: number) => String(h.sandbox.records('harbor-law', 'blogs')[i]?.id);
  const current = (card: FakeMessage) => h.slack.messages(card.channel).find((m) => m.ts === card.ts) ?? card;
  const click = (card: FakeMessage, actionId: string, user: string) =>
    h.driver.click(current(card), { actionId }, { user });
  const cardSays = (card: FakeMessage, pattern: RegExp) =>
    h.slack.waitFor(() => pattern.test(textOf(current(card))) && current(card), {
      what: `the card to say ${pattern}`,
    });
  const told = (user: string, before: number, pattern: RegExp, channel = CHANNEL) =>
    h.slack.waitFor(
      () =>
        h.slack
          .ephemerals(channel, user)
          .slice(before)
          .find((m) => pattern.test(textOf(m))),
      { what: `an ephemeral to ${user} matching ${pattern}` },
    );
  const seen = (user: string, channel = CHANNEL) => h.slack.ephemerals(channel, user).length;

  async function ask(postId: string, channel = CHANNEL): Promise<FakeMessage> {
    const before = new Set(h.slack.messages(channel).map((m) => m.ts));
    await h.gateway(`deploy ${postId}`, { user: MEMBER, channel });
    return h.slack.waitFor(
      () => h.slack.messages(channel).find((m) => !before.has(m.ts) && /^Approval needed/.test(m.text)),
      { what: `the card of deploy ${postId}` },
    );
  }

  async function admin(text: string, pattern: RegExp, channel = CHANNEL): Promise<string> {
    const asked = seen(ADMIN, channel);
    const posted = h.slack.messages(channel).length;
    await h.gateway(text, { user: ADMIN, channel });
    const answer = await h.slack.waitFor(
      () =>
        h.slack
          .messages(channel)
          .slice(posted)
          .find((m) => pattern.test(textOf(m))) ??
        h.slack
          .ephemerals(channel, ADMIN)
          .slice(asked)
          .find((m) => pattern.test(textOf(m))),
      { what: `the answer to ${text}` },
    );
    return textOf(answer);
  }

  beforeAll(async () => {
    h = await startHarness('e2e-client-signoff', { GATEWAY_APPROVERS: `${ADMIN},${APPROVER}` });
    await bind(h, 'harbor-law');
    await bind(h, 'acme-plumbing', OTHER_CHANNEL);
    for (const user of [ERIN, FRANK, MEMBER, ADMIN]) h.slack.simulate.joinChannel(CHANNEL, user);
    h.slack.simulate.joinChannel(OTHER_CHANNEL, ERIN);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('names client approvers (admins only): people of another workspace who are in the channel', async () => {
    expect(await admin(`signoff add <@${MEMBER}>`, /agency’s own people/)).toContain('GATEWAY_APPROVERS');
    h.slack.simulate.leaveChannel(CHANNEL, ERIN);
    expect(await admin(`signoff add <@${ERIN}>`, /is not in this channel/)).toContain('invite them');
    h.slack.simulate.joinChannel(CHANNEL, ERIN);
    expect(
      await admin(`signoff add <@${ERIN}>`, /named <@UEXTERNAL> \(Harbor Law Group\) a client approver/),
    ).toBeTruthy();
    const before = seen(MEMBER);
    await h.gateway(`signoff add <@${FRANK}>`, { user: MEMBER });
    await told(MEMBER, before, /admin/i);
    expect(await admin('signoff', /Client approvers of Harbor Law Group/)).toContain(`<@${ERIN}>`);
    expect(await admin('signoff policy both', /set this channel’s sign-off to `both`/)).toBeTruthy();
    // Home: erin is pointed at the channel where she signs off; frank, of a third workspace, at nothing.
    await h.driver.homeOpened({ user: ERIN });
    await h.slack.waitFor(
      () => /You can sign off requests in <#CSEO>/.test(JSON.stringify(h.slack.home(ERIN)?.view ?? {})),
      {
        what: 'erin’s Home panel',
      },
    );
    await h.driver.homeOpened({ user: FRANK });
    await h.slack.waitFor(
      () => /nothing here for you/.test(JSON.stringify(h.slack.home(FRANK)?.view ?? {})),
      {
        what: 'frank’s Home tab',
      },
    );
    // The admin's channel settings (Home) show the same sign-off.
    await h.driver.homeOpened({ user: ADMIN });
    const home = await h.slack.waitFor(
      () =>
        /home_channel_settings/.test(JSON.stringify(h.slack.home(ADMIN)?.view ?? {})) && h.slack.home(ADMIN),
      { what: 'the admin’s Home tab' },
    );
    await h.driver.click(home, { actionId: 'home_channel_settings', value: CHANNEL }, { user: ADMIN });
    const settings = await h.slack.waitFor(
      () => h.slack.views(ADMIN).find((v) => v.view.title.text === 'Channel settings'),
      { what: 'the channel settings' },
    );
    expect(JSON.stringify(settings.view.blocks)).toContain(
      `*Sign-off:* \`both\` · client approvers: <@${ERIN}>`,
    );
    // erin may still not run commands.
    const erinSeen = seen(ERIN);
    await h.gateway('signoff', { user: ERIN });
    await told(ERIN, erinSeen, /another workspace|only for people/i);
  });

  it('`both`, client first: erin signs off, alice approves, it runs once; the card shows each step', async () => {
    const card = await ask(post(1));
    expect(textOf(card)).toContain(`Client sign-off: waiting for <@${ERIN}> (Harbor Law Group)`);
    expect(textOf(card)).toContain('Agency approval: waiting for an agency approver');
    // erin reads the post on the card's View, as an agency approver would; frank, of a third workspace, cannot.
    await click(card, 'approval_view', ERIN);
    const view = await h.slack.waitFor(
      () => h.slack.views(ERIN).find((v) => v.view.title.text === 'Post to deploy'),
      { what: 'erin’s View of the post' },
    );
    const row = h.sandbox.records('harbor-law', 'blogs')[1] as { post_title: string; keyword: string };
    expect(JSON.stringify(view.view.blocks)).toContain(row.keyword);
    expect(JSON.stringify(view.view.blocks)).toContain(post(1));
    const before = seen(FRANK);
    await click(card, 'approval_view', FRANK);
    await told(FRANK, before, /cannot decide on this request/);
    expect(h.slack.views(FRANK).some((v) => v.view.title.text === 'Post to deploy')).toBe(false);
    await click(card, 'approval_approve', ERIN);
    await cardSays(card, /Client sign-off: ✅ <@UEXTERNAL> \(Harbor Law Group\)/);
    await quiet();
    expect(textOf(current(card))).toContain('Approval needed');
    expect(h.posts('deploy_blog')).toHaveLength(0);
    await click(card, 'approval_approve', ADMIN);
    await cardSays(card, /Approved by <@UADMIN>.*done/);
    expect(textOf(current(card))).toContain('Agency approval: ✅ <@UADMIN>');
    expect(h.posts('deploy_blog')).toHaveLength(1);
  });

  it('`both`, agency first: alice approves, erin signs off, it runs once; a second agency click is refused', async () => {
    const posts = h.posts('deploy_blog').length;
    const card = await ask(post(2));
    await click(card, 'approval_approve', ADMIN);
    await cardSays(card, /Agency approval: ✅ <@UADMIN>/);
    const before = seen(APPROVER);
    await click(card, 'approval_approve', APPROVER);
    await told(APPROVER, before, /already decided/);
    expect(h.posts('deploy_blog')).toHaveLength(posts);
    await click(card, 'approval_approve', ERIN);
    await cardSays(card, /done/);
    expect(h.posts('deploy_blog')).toHaveLength(posts + 1);
  });

  it('a Reject from either side ends a `both` request', async () => {
    const posts = h.posts('deploy_blog').length;
    const byClient = await ask(post(3));
    await click(byClient, 'approval_approve', ADMIN);
    await cardSays(byClient, /Agency approval: ✅/);
    await click(byClient, 'approval_reject', ERIN);
    await cardSays(byClient, /Rejected by <@UEXTERNAL>/);
    const byAgency = await ask(post(4));
    await click(byAgency, 'approval_approve', ERIN);
    await cardSays(byAgency, /Client sign-off: ✅/);
    await click(byAgency, 'approval_reject', ADMIN);
    const rejected = await cardSays(byAgency, /Rejected by <@UADMIN>/);
    expect(textOf(rejected)).not.toContain('approval_approve');
    await quiet();
    expect(h.posts('deploy_blog')).toHaveLength(posts);
  });

  it('refuses a third workspace, a forged team id, the approver on another channel’s card, and a removed approver', async () => {
    const posts = h.posts('deploy_blog').length;
    const card = await ask(post(5));
    let before = seen(FRANK);
    await click(card, 'approval_approve', FRANK);
    await told(FRANK, before, /cannot decide on this request/);

    // erin's click, signed, but saying it comes from the third workspace.
    before = seen(ERIN);
    const { payload } = h.driver.clickPayload(
      current(card),
      { actionId: 'approval_approve' },
      { user: ERIN },
    );
    (payload.user as { team_id: string }).team_id = 'T0THIRD';
    const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
    expect((await h.driver.raw(body, signSlackRequest(SIGNING_SECRET, body))).status).toBe(200);
    await told(ERIN, before, /cannot decide on this request/);

    // A card of the other channel (another client, where erin is a member but not named).
    const other = await ask(String(h.sandbox.records('acme-plumbing', 'blogs')[0]?.id), OTHER_CHANNEL);
    before = seen(ERIN, OTHER_CHANNEL);
    await click(other, 'approval_approve', ERIN);
    await told(ERIN, before, /cannot decide on this request/, OTHER_CHANNEL);

    // Named when the request was asked, removed since (the policy set to `agency` first: `both` needs her).
    await admin('signoff policy agency', /sign-off to `agency`/);
    await admin(`signoff remove <@${ERIN}>`, /removed <@UEXTERNAL>/);
    before = seen(ERIN);
    await click(card, 'approval_approve', ERIN);
    await told(ERIN, before, /cannot decide on this request/);
    await admin(`signoff add <@${ERIN}>`, /named <@UEXTERNAL>/);
    await admin('signoff policy both', /sign-off to `both`/);

    // Retry and Cancel stay refused to another workspace's people.
    before = seen(ERIN);
    await click(card, 'approval_cancel', ERIN);
    await told(ERIN, before, /another workspace|only for people/i);
    await click(card, 'approval_approve', ADMIN);
    await quiet();
    expect(textOf(current(card))).toContain('Approval needed');
    expect(h.posts('deploy_blog')).toHaveLength(posts);
  });

  it('20 concurrent clicks by the two deciders make exactly one POST', async () => {
    const posts = h.posts('deploy_blog').length;
    const card = await ask(post(6));
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => click(card, 'approval_approve', i % 2 ? ERIN : ADMIN)),
    );
    await cardSays(card, /done/);
    await quiet(500);
    expect(h.posts('deploy_blog')).toHaveLength(posts + 1);
  });

  it('an expired sign-off runs nothing, whatever step was decided', async () => {
    const posts = h.posts('deploy_blog').length;
    const card = await ask(post(7));
    await click(card, 'approval_approve', ERIN);
    await cardSays(card, /Client sign-off: ✅/);
    const id = /approval `(a[a-z0-9]+)`/.exec(textOf(current(card)))?.[1];
    const { redis } = testRedis(h.prefix);
    await redis.hset(`${h.prefix}:approval:${id}`, 'expiresAt', String(Date.now() - 1_000));
    await redis.quit();
    await click(card, 'approval_approve', ADMIN);
    await cardSays(card, /Expired/);
    await quiet();
    expect(h.posts('deploy_blog')).toHaveLength(posts);
  });

  it('`client`: erin decides; an agency approver’s Approve is refused, naming her', async () => {
    await admin('signoff policy client', /sign-off to `client`/);
    const posts = h.posts('deploy_blog').length;
    const card = await ask(post(8));
    const before = seen(ADMIN);
    await click(card, 'approval_approve', ADMIN);
    expect(textOf(await told(ADMIN, before, /waits for the client’s sign-off/))).toContain(`<@${ERIN}>`);
    await click(card, 'approval_approve', ERIN);
    await cardSays(card, /Approved by <@UEXTERNAL>.*done/);
    expect(h.posts('deploy_blog')).toHaveLength(posts + 1);
    const asked = seen(ADMIN);
    await h.gateway('history', { user: ADMIN });
    const history = textOf(await told(ADMIN, asked, /Approvals and guarded actions/));
    expect(history).toContain('*approved* by <@UEXTERNAL> (Harbor Law Group)');
    const metrics = await (await fetch(`http://127.0.0.1:${h.runtime.port}/metrics`)).text();
    expect(metrics).toMatch(/gateway_bot_signoffs_total\{outcome="client_approved"\} [1-9]/);
    expect(metrics).toMatch(/gateway_bot_signoffs_total\{outcome="client_rejected"\} [1-9]/);
  });

  it('an admin waives the client’s sign-off with a reason: audited, shown on the card; others may not', async () => {
    await admin('signoff policy both', /sign-off to `both`/);
    const posts = h.posts('deploy_blog').length;
    const card = await ask(post(10));
    const before = seen(MEMBER);
    await click(card, 'approval_waive', MEMBER);
    await told(MEMBER, before, /Only admins can waive a client sign-off/);
    await click(card, 'approval_waive', ADMIN);
    const form = await h.openModal(/Waive client sign-off/, ADMIN);
    await h.driver.submit(form, { reason: 'Acme approved by phone' }, { user: ADMIN });
    await cardSays(card, /Client sign-off: waived by <@UADMIN>: “Acme approved by phone”/);
    expect(h.posts('deploy_blog')).toHaveLength(posts);
    expect(JSON.stringify(current(card).blocks)).not.toContain('approval_waive');
    await click(card, 'approval_approve', APPROVER);
    await cardSays(card, /done/);
    expect(h.posts('deploy_blog')).toHaveLength(posts + 1);

    const asked = seen(ADMIN);
    await h.gateway('history', { user: ADMIN });
    const history = textOf(await told(ADMIN, asked, /Approvals and guarded actions/));
    expect(history).toContain('*client sign-off waived* by <@UADMIN>');
    expect(history).toContain('Acme approved by phone');
    expect(history).toContain('*approved* by <@UCAROLINE> (agency)');
  });

  it('refuses the requester’s own waiver: under `client` it would be the only click the deploy needed', async () => {
    await admin('signoff policy client', /sign-off to `client`/);
    const posts = h.posts('deploy_blog').length;
    const before = new Set(h.slack.messages(CHANNEL).map((m) => m.ts));
    await h.gateway(`deploy ${post(11)}`, { user: ADMIN });
    const card = await h.slack.waitFor(
      () => h.slack.messages(CHANNEL).find((m) => !before.has(m.ts) && /^Approval needed/.test(m.text)),
      { what: 'the card of the admin’s own deploy' },
    );
    await click(card, 'approval_waive', ADMIN);
    const form = await h.openModal(/Waive client sign-off/, ADMIN);
    const dms = h.slack.messages(`D${ADMIN}`).length;
    await h.driver.submit(form, { reason: 'my own request' }, { user: ADMIN });
    // A form has no response URL: the refusal comes as a direct message.
    await h.slack.waitFor(
      () =>
        h.slack
          .messages(`D${ADMIN}`)
          .slice(dms)
          .find((m) => /You asked for this/.test(m.text)),
      { what: 'the refusal of the admin’s own waiver' },
    );
    await quiet();
    expect(textOf(current(card))).not.toMatch(/waived/);
    expect(h.posts('deploy_blog')).toHaveLength(posts);
    // erin, the client, still decides it.
    await click(card, 'approval_approve', ERIN);
    await cardSays(card, /Approved by <@UEXTERNAL>.*done/);
    expect(h.posts('deploy_blog')).toHaveLength(posts + 1);
  });

  it('`client` and `both` stand only while the channel names a client approver', async () => {
    // A channel that names none (the agency's own channel for another client): refused, saying what to do.
    const refused = await admin('signoff policy client', /needs a client approver/, OTHER_CHANNEL);
    expect(refused).toContain('signoff add @person');
    expect(await admin('signoff', /Client approvers of/, OTHER_CHANNEL)).toMatch(/`agency`/);
    // The last client approver is not removed while the policy needs one.
    await admin('signoff policy both', /sign-off to `both`/);
    expect(await admin(`signoff remove <@${ERIN}>`, /last client approver/)).toContain(
      'signoff policy agency',
    );
    expect(await admin('signoff', /Client approvers of Harbor Law Group/)).toContain(`<@${ERIN}>`);
  });

  it('`agency`: as before; erin’s click is refused', async () => {
    await admin('signoff policy agency', /sign-off to `agency`/);
    const posts = h.posts('deploy_blog').length;
    const card = await ask(post(9));
    expect(textOf(card)).not.toContain('Client sign-off');
    const before = seen(ERIN);
    await click(card, 'approval_approve', ERIN);
    await told(ERIN, before, /cannot decide on this request/);
    await click(card, 'approval_approve', ADMIN);
    await cardSays(card, /done/);
    expect(h.posts('deploy_blog')).toHaveLength(posts + 1);
  });

  it('the channel settings on Home edit the sign-off: all or nothing, and the channel is told', async () => {
    await h.driver.homeOpened({ user: ADMIN });
    const home = await h.slack.waitFor(
      () =>
        /home_channel_settings/.test(JSON.stringify(h.slack.home(ADMIN)?.view ?? {})) && h.slack.home(ADMIN),
      { what: 'the admin’s Home tab' },
    );
    const opened = new Set(h.slack.views(ADMIN).map((v) => v.id));
    const open = async () => {
      await h.driver.click(home, { actionId: 'home_channel_settings', value: CHANNEL }, { user: ADMIN });
      const view = await h.slack.waitFor(
        () => h.slack.views(ADMIN).find((v) => v.view.title.text === 'Channel settings' && !opened.has(v.id)),
        { what: 'the channel settings' },
      );
      opened.add(view.id);
      return view;
    };
    // One of the agency's own people among the names: refused on the field, and nothing of it saved.
    const first = await open();
    const refused = await h.driver.submit(
      first,
      { policy: 'client', approvers: [ERIN, MEMBER] },
      { user: ADMIN },
    );
    expect(JSON.stringify(refused.json)).toMatch(/signoff_approvers.*one of the agency’s own people/);
    expect(await admin('signoff', /Client approvers of Harbor Law Group/)).toMatch(/`agency`/);
    // `client` with nobody to sign off: refused on the field, nothing saved.
    const none = await h.driver.submit(await open(), { policy: 'client', approvers: [] }, { user: ADMIN });
    expect(JSON.stringify(none.json)).toMatch(/signoff_approvers.*needs a client approver/);
    expect(await admin('signoff', /Client approvers of Harbor Law Group/)).toMatch(/`agency`/);
    // The policy to `client` with erin kept, then back to `agency` with erin taken off the list: saved, and
    // the channel told of each change.
    const posted = h.slack.messages(CHANNEL).length;
    for (const [policy, approvers] of [
      ['client', [ERIN]],
      ['agency', []],
    ] as const) {
      const saved = await h.driver.submit(
        await open(),
        { policy, approvers: [...approvers] },
        { user: ADMIN },
      );
      expect(saved.status).toBe(200);
      expect(JSON.stringify(saved.json ?? {})).not.toContain('errors');
    }
    await h.slack.waitFor(
      () =>
        h.slack
          .messages(CHANNEL)
          .slice(posted)
          .find((m) => /removed <@UEXTERNAL>/.test(textOf(m))),
      { what: 'the removal told in the channel' },
    );
    const told = h.slack
      .messages(CHANNEL)
      .slice(posted)
      .map((m) => textOf(m));
    expect(told.some((t) => /set this channel’s sign-off to `client`/.test(t))).toBe(true);
    const list = await admin('signoff', /Client approvers of Harbor Law Group/);
    expect(list).toContain('none named yet');
    expect(list).toMatch(/`agency`/);
  });
});
