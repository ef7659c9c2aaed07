/**
 * The App Home tab through the real bot, the Slack stand-in and the sandbox gateway: what waits for an
 * approver, a requester's requests and jobs, decisions from the tab that are the card's decisions too, and the
 * tab published again when something in it changes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessage, FakeView } from '../../src/local/fake-slack/index.js';
import { ADMIN, bind, CHANNEL, type Harness, MEMBER, startHarness, textOf } from '../helpers/bot-harness.js';

const GUEST = 'UGUEST';
const OTHER = 'UOTHER';

const homeText = (view: FakeView | undefined) => JSON.stringify(view?.view.blocks ?? []);

function cards(h: Harness): FakeMessage[] {
  return h.slack.messages(CHANNEL).filter((m) => /^Approval/.test(m.text));
}

async function askDeploy(h: Harness, postId: string): Promise<FakeMessage> {
  const before = new Set(cards(h).map((m) => m.ts));
  await h.gateway(`deploy ${postId}`, { user: MEMBER });
  return h.slack.waitFor(() => cards(h).find((m) => !before.has(m.ts)), {
    what: `the card of deploy ${postId}`,
  });
}

const cardNow = (h: Harness, card: FakeMessage) => cards(h).find((m) => m.ts === card.ts) ?? card;

async function homeSays(h: Harness, user: string, pattern: RegExp, timeoutMs = 10_000): Promise<FakeView> {
  return h.slack.waitFor(
    () => {
      const home = h.slack.home(user);
      return home && pattern.test(homeText(home)) ? home : undefined;
    },
    { what: `${user}'s Home tab to say ${pattern}`, timeoutMs },
  );
}

const publishes = (h: Harness, user: string) =>
  h.slack.calls.filter((c) => c.method === 'views.publish' && c.args.user_id === user && c.ok).length;

describe('the Home tab', () => {
  let h: Harness;
  const post = (i: number) => String(h.sandbox.records('harbor-law', 'blogs')[i]?.id);
  beforeAll(async () => {
    h = await startHarness('e2e-home');
    await bind(h, 'harbor-law');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('opens on a first visit from Redis alone, and a twice-delivered open publishes once', async () => {
    const gets = h.sandbox.requests().length;
    const sent = await h.driver.homeOpened({ user: MEMBER });
    expect(sent.status).toBe(200);
    const home = await homeSays(h, MEMBER, /Your recent jobs/);
    expect(homeText(home)).toContain('Nothing waits for your approval');
    expect(homeText(home)).toContain('You have asked for no approval lately');
    expect(h.sandbox.requests().length).toBe(gets);
    const before = publishes(h, MEMBER);
    await h.driver.homeOpened({ user: MEMBER, eventId: sent.eventId });
    await new Promise((r) => setTimeout(r, 300));
    expect(publishes(h, MEMBER)).toBe(before);
  });

  // These first: they wait for re-publishes, and the workspace's budget (18 in 15 s) is not spent before them.
  it('publishes the requester’s Home again within 3 s when one of their jobs changes state', async () => {
    await h.driver.homeOpened({ user: MEMBER });
    await homeSays(h, MEMBER, /Your recent jobs/);
    const url = `https://example.com/home-${Date.now()}`;
    const started = Date.now();
    await h.gateway(`audit ${url}`, { user: MEMBER });
    const status = await h.settled((m) => m.text.includes(url) && /done/.test(m.text));
    const ended = Date.now();
    // The job's end reaches the tab within 3 s, without the person opening it again.
    await h.slack.waitFor(
      () => {
        const row = (h.slack.home(MEMBER)?.view.blocks ?? []).find((b: { text?: { text?: string } }) =>
          b.text?.text?.includes(url),
        );
        return row && /\ndone ·/.test(row.text.text);
      },
      { what: 'the job done on the Home tab', timeoutMs: 3_000 },
    );
    expect(Date.now() - ended).toBeLessThan(3_000);
    expect(status.status.ts).toBeDefined();
    expect(started).toBeLessThan(ended);
  });

  it('waits out a 429 from views.publish as long as Slack asks, then publishes', async () => {
    await h.driver.homeOpened({ user: MEMBER });
    await homeSays(h, MEMBER, /Your recent jobs/);
    h.slack.simulate.ratelimit('views.publish', 1, 1);
    const url = `https://example.com/limited-${Date.now()}`;
    await h.gateway(`audit ${url}`, { user: MEMBER });
    await h.slack.waitFor(
      () =>
        (h.slack.home(MEMBER)?.view.blocks ?? []).some((b: { text?: { text?: string } }) =>
          b.text?.text?.includes(url),
        ),
      { what: 'the Home tab after the 429', timeoutMs: 8_000 },
    );
    const calls = h.slack.calls.filter((c) => c.method === 'views.publish' && c.args.user_id === MEMBER);
    const limited = calls.findLastIndex((c) => c.error === 'ratelimited');
    expect(limited).toBeGreaterThanOrEqual(0);
    const next = calls.slice(limited + 1).find((c) => c.ok);
    expect((next?.at ?? 0) - (calls[limited]?.at ?? 0)).toBeGreaterThanOrEqual(900);
  });

  it('publishes the newest state over a view another publish replaced (hash conflict: read again)', async () => {
    await h.driver.homeOpened({ user: MEMBER });
    await homeSays(h, MEMBER, /Your recent jobs/);
    // Another publish lands (as from a process that read an older state): the bot's stored hash is now stale.
    const answer = await fetch(`${h.slack.apiUrl}views.publish`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.slack.botToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        user_id: MEMBER,
        view: {
          type: 'home',
          blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'an older state' } }],
        },
      }),
    });
    expect(((await answer.json()) as { ok: boolean }).ok).toBe(true);
    const url = `https://example.com/conflict-${Date.now()}`;
    await h.gateway(`audit ${url}`, { user: MEMBER });
    const home = await homeSays(h, MEMBER, new RegExp(url.replace(/[.]/g, '\\.')));
    expect(homeText(home)).not.toContain('an older state');
    expect(h.slack.calls.some((c) => c.method === 'views.publish' && c.error === 'hash_conflict')).toBe(true);
  });

  it('publishes a person’s Home again when they mint or revoke a token with the command', async () => {
    await h.driver.homeOpened({ user: MEMBER });
    await homeSays(h, MEMBER, /Your recent jobs/);
    // In a channel of its own, so that the later test's minted token is not mistaken for this one.
    const where = { user: MEMBER, channel: 'CHOMETOKEN' };
    await h.gateway('mcp token read', where);
    const minted = await h.ephemeral((m) => /gwb_/.test(textOf(m)), where);
    const secret = /gwb_[A-Za-z0-9_-]+/.exec(textOf(minted))?.[0] ?? '';
    const token = await h.runtime.services.assistantTokens.verify(secret);
    if (!token) throw new Error('no token minted');
    // Not opened again: the mint itself re-publishes the tab.
    await homeSays(h, MEMBER, new RegExp(`${token.id}.*read-only`), 5_000);
    await h.gateway(`mcp revoke ${token.id}`, where);
    await h.slack.waitFor(() => !homeText(h.slack.home(MEMBER)).includes(token.id), {
      what: 'the revoked token gone from the Home tab',
      timeoutMs: 5_000,
    });
  });

  it('publishes an admin’s Home again when a channel is bound', async () => {
    await h.driver.homeOpened({ user: ADMIN });
    await homeSays(h, ADMIN, /For admins/);
    await bind(h, 'bright-dental', 'CHOMEBOUND');
    await homeSays(h, ADMIN, /<#CHOMEBOUND> → \*Bright Dental Studio\*/, 5_000);
  });

  it('retries a failed job from Home, under the usual rules: one new POST', async () => {
    h.sandbox.failNext('status_error', { method: 'POST', action: 'index_url' });
    const url = `https://example.com/retry-${Date.now()}`;
    await h.driver.homeOpened({ user: MEMBER });
    await h.gateway(`index ${url}`, { user: MEMBER });
    const failed = await h.slack.waitFor(
      () => {
        const home = h.slack.home(MEMBER);
        return home && /home_job_retry/.test(homeText(home)) && homeText(home).includes(url)
          ? home
          : undefined;
      },
      { what: 'the failed job with Retry on the Home tab' },
    );
    const before = h.posts('index_url').length;
    await h.driver.click(failed, { actionId: 'home_job_retry' }, { user: MEMBER });
    await homeSays(h, MEMBER, /Retried/);
    await h.slack.waitFor(() => h.posts('index_url').length === before + 1, { what: 'the retried POST' });
    // A second click on the same Retry starts nothing more.
    await h.driver.click(failed, { actionId: 'home_job_retry' }, { user: MEMBER });
    await new Promise((r) => setTimeout(r, 500));
    expect(h.posts('index_url')).toHaveLength(before + 1);
  });

  it('lets an approver approve from Home: one POST, and the channel card shows it', async () => {
    const card = await askDeploy(h, post(1));
    await h.driver.homeOpened({ user: ADMIN });
    const home = await homeSays(
      h,
      ADMIN,
      new RegExp(`home_approve.*${card.text.includes('deploy') ? '' : ''}`),
    );
    expect(homeText(home)).toContain('Harbor Law');
    expect(homeText(home)).toContain('"confirm"');
    // What will run, without opening the card: the post.
    expect(homeText(home)).toMatch(new RegExp(`\\*Post:\\* .*\\(\`${post(1)}\`\\)`));
    await h.driver.click(home, { actionId: 'home_approve' }, { user: ADMIN });
    await h.slack.waitFor(() => /Approved by <@UADMIN>.*done/.test(textOf(cardNow(h, card))), {
      what: 'the card to say done',
    });
    expect(h.posts('deploy_blog')).toHaveLength(1);
    const after = await homeSays(h, ADMIN, /Nothing waits for your approval/);
    expect(homeText(after)).not.toContain('home_approve');
    // The requester's tab shows it decided, once they have opened it.
    await h.driver.homeOpened({ user: MEMBER });
    await homeSays(h, MEMBER, /Approved by <@UADMIN>/);
  });

  it('shows a card approved first as decided on both tabs, and a stale Home Approve runs nothing more', async () => {
    const card = await askDeploy(h, post(2));
    await h.driver.homeOpened({ user: ADMIN });
    await h.driver.homeOpened({ user: MEMBER });
    // The tab as the approver's client shows it, before the decision.
    const shown = structuredClone(await homeSays(h, ADMIN, /home_approve/));
    const posts = h.posts('deploy_blog').length;
    await h.driver.click(cardNow(h, card), { actionId: 'approval_approve' }, { user: ADMIN });
    await h.slack.waitFor(() => /Approved by <@UADMIN>.*done/.test(textOf(cardNow(h, card))), {
      what: 'the card to say done',
    });
    // Nobody opens anything again: both tabs are published anew with the decision.
    await homeSays(h, ADMIN, /Nothing waits for your approval/);
    await h.slack.waitFor(
      () =>
        (h.slack.home(MEMBER)?.view.blocks ?? []).some(
          (b: { text?: { text?: string } }) =>
            b.text?.text?.includes('Blog deploy') && /Approved by <@UADMIN>.*done/.test(b.text.text),
        ),
      { what: 'the requester’s tab to show it done' },
    );
    await h.driver.click(shown, { actionId: 'home_approve' }, { user: ADMIN }, { asShown: true });
    await homeSays(h, ADMIN, /already approved/);
    await new Promise((r) => setTimeout(r, 300));
    expect(h.posts('deploy_blog')).toHaveLength(posts + 1);
  });

  it('refuses the stale Home button of a request rejected on its card', async () => {
    const card = await askDeploy(h, post(5));
    await h.driver.homeOpened({ user: ADMIN });
    const shown = structuredClone(await homeSays(h, ADMIN, /home_approve/));
    const posts = h.posts('deploy_blog').length;
    await h.driver.click(cardNow(h, card), { actionId: 'approval_reject' }, { user: ADMIN });
    await h.slack.waitFor(() => /Rejected by <@UADMIN>/.test(textOf(cardNow(h, card))), {
      what: 'the reject',
    });
    await h.driver.click(shown, { actionId: 'home_approve' }, { user: ADMIN }, { asShown: true });
    const answered = await homeSays(h, ADMIN, /already rejected/);
    expect(homeText(answered)).not.toContain('home_approve');
    expect(h.posts('deploy_blog')).toHaveLength(posts);
  });

  it('refuses a Home Approve from someone who may not decide: a non-approver, the requester themself', async () => {
    const card = await askDeploy(h, post(6));
    await h.driver.homeOpened({ user: ADMIN });
    const shown = structuredClone(await homeSays(h, ADMIN, /home_approve/));
    const posts = h.posts('deploy_blog').length;
    // The approver's tab's button, clicked by a member who is no approver (a crafted click).
    await h.driver.homeOpened({ user: MEMBER });
    await homeSays(h, MEMBER, /Your recent jobs/);
    await h.driver.click(shown, { actionId: 'home_approve' }, { user: MEMBER }, { asShown: true });
    await homeSays(h, MEMBER, /Only approvers can decide on this request/);
    // The admin's own request, approved from the tab by its requester (the button's value made theirs).
    const before = new Set(cards(h).map((m) => m.ts));
    await h.gateway(`deploy ${post(7)}`, { user: ADMIN });
    const own = await h.slack.waitFor(() => cards(h).find((m) => !before.has(m.ts)), { what: 'the card' });
    const ownId = /"action_id":"approval_approve"[^}]*"value":"([^"]+)"/.exec(
      JSON.stringify(own.blocks),
    )?.[1];
    if (!ownId) throw new Error('no approval id on the card');
    const forged = structuredClone(shown);
    const text = JSON.stringify(forged.view.blocks).replace(
      /("action_id":"home_approve"[^}]*"value":")[^"]+/,
      `$1${ownId}`,
    );
    forged.view.blocks = JSON.parse(text);
    await h.driver.click(forged, { actionId: 'home_approve' }, { user: ADMIN }, { asShown: true });
    await homeSays(h, ADMIN, /You asked for this/);
    await new Promise((r) => setTimeout(r, 300));
    expect(h.posts('deploy_blog')).toHaveLength(posts);
    expect(textOf(cardNow(h, card))).toMatch(/Approval needed/);
    expect(textOf(cardNow(h, own))).toMatch(/Approval needed/);
    // Out of the way of the tests below, which click the newest Approve on the tab.
    await h.driver.click(cardNow(h, card), { actionId: 'approval_reject' }, { user: ADMIN });
    await h.driver.click(cardNow(h, own), { actionId: 'approval_cancel' }, { user: ADMIN });
    await h.slack.waitFor(() => /Cancelled by <@UADMIN>/.test(textOf(cardNow(h, own))), {
      what: 'cancelled',
    });
    await homeSays(h, ADMIN, /Nothing waits for your approval/);
  });

  it('makes exactly one POST of 50 concurrent Approve clicks split between Home and the card', async () => {
    const card = await askDeploy(h, post(3));
    await h.driver.homeOpened({ user: ADMIN });
    // Both as the clicking clients show them: the clicks land while the card and the tab change under them.
    const home = structuredClone(await homeSays(h, ADMIN, /home_approve/));
    const shownCard = structuredClone(card);
    const posts = h.posts('deploy_blog').length;
    await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        i % 2
          ? h.driver.click(home, { actionId: 'home_approve' }, { user: ADMIN }, { asShown: true })
          : h.driver.click(shownCard, { actionId: 'approval_approve' }, { user: ADMIN }),
      ),
    );
    await h.slack.waitFor(() => /done/.test(textOf(cardNow(h, card))), { what: 'the card to say done' });
    await new Promise((r) => setTimeout(r, 500));
    expect(h.posts('deploy_blog')).toHaveLength(posts + 1);
  });

  it('lets the requester cancel a pending request from Home', async () => {
    const card = await askDeploy(h, post(4));
    await h.driver.homeOpened({ user: MEMBER });
    const home = await homeSays(h, MEMBER, /home_approval_cancel/);
    await h.driver.click(home, { actionId: 'home_approval_cancel' }, { user: MEMBER });
    await h.slack.waitFor(() => /Cancelled by <@UMEMBER>/.test(textOf(cardNow(h, card))), {
      what: 'the card to say cancelled',
    });
    const after = await homeSays(h, MEMBER, /Cancelled by <@UMEMBER>/);
    expect(homeText(after)).not.toContain('home_approval_cancel');
  });

  it('keeps to Block Kit’s limits with 500 pending approvals, and says how many more there are', async () => {
    const { approvals } = h.runtime.services;
    const since = h.slack.calls.length;
    const long = 'x'.repeat(5_000);
    for (let i = 0; i < 500; i++)
      await approvals.createExclusive({
        action: 'deploy_blog',
        label: `Blog deploy ${i} ${long}`,
        clientId: 'harbor-law',
        clientLabel: 'Harbor Law',
        fields: { post_id: `p${i}` },
        hash: `limits-${i}`,
        preview: { kind: 'deploy', postId: `p${i}` },
        requestedBy: MEMBER,
        channel: CHANNEL,
        ttlMs: 3_600_000,
      });
    await h.driver.homeOpened({ user: ADMIN });
    const home = await homeSays(h, ADMIN, /and 49\d more/);
    expect(home.view.blocks.length).toBeLessThanOrEqual(100);
    // A hash conflict is a publish that met a newer one: it is read again and published, by design.
    const failed = h.slack.calls
      .slice(since)
      .filter((c) => c.method === 'views.publish' && !c.ok && c.error !== 'hash_conflict');
    expect(failed).toEqual([]);
    // The requester's own: the newest few shown, and how many more, not only of those read.
    await h.driver.homeOpened({ user: MEMBER });
    const mine = await homeSays(h, MEMBER, /and at least 45 more: `\/gateway history`/);
    expect(mine.view.blocks.length).toBeLessThanOrEqual(100);
  });

  it('opens a bound channel’s settings from the admin part; a member has no admin part', async () => {
    await h.driver.homeOpened({ user: ADMIN });
    const home = await homeSays(h, ADMIN, /home_channel_settings/);
    await h.driver.click(home, { actionId: 'home_channel_settings', value: CHANNEL }, { user: ADMIN });
    const modal = await h.slack.waitFor(
      () => h.slack.views(ADMIN).find((v) => v.view.title?.text === 'Channel settings'),
      { what: 'the settings modal' },
    );
    expect(homeText(modal)).toContain('Harbor Law');
    expect(homeText(modal)).toContain('/gateway digest');
    await h.driver.homeOpened({ user: MEMBER });
    const member = await homeSays(h, MEMBER, /Your recent jobs/);
    expect(homeText(member)).not.toContain('For admins');
    expect(homeText(member)).not.toContain('home_channel_settings');
  });

  it('lists the person’s assistant tokens and revokes one from Home, behind a confirm', async () => {
    await h.gateway('mcp token read', { user: MEMBER });
    const minted = await h.ephemeral((m) => /gwb_/.test(textOf(m)));
    const secret = /gwb_[A-Za-z0-9_-]+/.exec(textOf(minted))?.[0] ?? '';
    const token = await h.runtime.services.assistantTokens.verify(secret);
    if (!token) throw new Error('no token minted');
    await h.driver.homeOpened({ user: MEMBER });
    const home = await homeSays(h, MEMBER, new RegExp(`${token.id}.*read-only`));
    expect(homeText(home)).not.toContain(secret);
    expect(homeText(home)).toContain('Revoke this token?');
    await h.driver.click(home, { actionId: 'home_token_revoke', value: token.id }, { user: MEMBER });
    await homeSays(h, MEMBER, /is revoked/);
    expect(await h.runtime.services.assistantTokens.verify(secret)).toBeUndefined();
    expect(homeText(h.slack.home(MEMBER))).toContain('You have no assistant-tool tokens');
  });

  it('lists every bound channel a member is in, used or not, and no channel they are not in', async () => {
    await bind(h, 'bright-dental', 'CHOMEOTHER');
    // carol is in the harness channel and has never used it; she is not in the other bound channel.
    h.slack.simulate.joinChannel(CHANNEL, OTHER);
    await h.driver.homeOpened({ user: OTHER });
    const home = await homeSays(h, OTHER, /Channels and clients/);
    expect(homeText(home)).toContain(`<#${CHANNEL}> → *Harbor Law Group*`);
    expect(homeText(home)).not.toContain('No channel you use is bound');
    expect(homeText(home)).not.toContain('CHOMEOTHER');
    expect(homeText(home)).not.toContain('Bright');
  });

  it('shows a guest one short panel and no client', async () => {
    await h.driver.homeOpened({ user: GUEST });
    const home = await homeSays(h, GUEST, /not for|nothing here for you/);
    expect(homeText(home)).not.toContain('Harbor Law');
    expect(homeText(home)).not.toContain('harbor-law');
    // Someone of another workspace (Slack Connect) the same, though they are in the bound channel.
    h.slack.simulate.joinChannel(CHANNEL, 'UEXTERNAL');
    await h.driver.homeOpened({ user: 'UEXTERNAL' });
    const external = await homeSays(h, 'UEXTERNAL', /nothing here for you/);
    expect(homeText(external)).not.toMatch(/Harbor|harbor-law|CSEO/);
  });
});

describe('the Home tab with a queued job', () => {
  let h: Harness;
  beforeAll(async () => {
    // One action every 30 s: the second job waits its turn, so it can still be cancelled.
    h = await startHarness('e2e-home-cancel', { GATEWAY_ACTION_RATE: '1/30s' });
    await bind(h, 'harbor-law');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('lets the requester cancel a queued job from Home; its message says so and nothing is sent', async () => {
    await h.driver.homeOpened({ user: MEMBER });
    await homeSays(h, MEMBER, /Your recent jobs/);
    await h.gateway('audit https://example.com/first', { user: MEMBER });
    await h.gateway('audit https://example.com/second', { user: MEMBER });
    const home = await homeSays(h, MEMBER, /second.*home_job_cancel|home_job_cancel.*second/);
    const value = (
      home.view.blocks as Array<{
        text?: { text?: string };
        accessory?: { action_id?: string; value?: string };
      }>
    ).find(
      (b) => b.text?.text?.includes('example.com/second') && b.accessory?.action_id === 'home_job_cancel',
    )?.accessory?.value;
    expect(value).toBeDefined();
    await h.driver.click(home, { actionId: 'home_job_cancel', value }, { user: MEMBER });
    await h.message((m) => m.text.includes('example.com/second') && /cancelled/.test(textOf(m)));
    await homeSays(h, MEMBER, /Cancelled before it started/);
    await new Promise((r) => setTimeout(r, 300));
    expect(h.posts('seo_audit').filter((p) => JSON.stringify(p.fields).includes('second'))).toHaveLength(0);
  });
});

describe('the Home tab when a job ends', () => {
  let h: Harness;
  const idle = /\*Queue:\* 0 waiting, 0 running/;
  beforeAll(async () => {
    // The deploy below outlasts the tab's debounce on purpose: its POST may take that long.
    h = await startHarness('e2e-home-ends', { GATEWAY_ACTION_TIMEOUT: '10s' });
    await bind(h, 'harbor-law');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('publishes an admin’s tab again at once when a job they did not ask for ends: it never stays "running"', async () => {
    await h.driver.homeOpened({ user: ADMIN });
    await homeSays(h, ADMIN, idle);
    h.sandbox.setKnobs({ latencyMs: 1_500 });
    try {
      await h.gateway('audit https://example.com/ends', { user: MEMBER });
      // The admin looks while it runs (each open publishes the tab as it is then).
      let running = false;
      for (let i = 0; i < 40 && !running; i++) {
        await h.driver.homeOpened({ user: ADMIN });
        await new Promise((r) => setTimeout(r, 100));
        running = /\*Queue:\* 0 waiting, 1 running/.test(homeText(h.slack.home(ADMIN)));
      }
      expect(running).toBe(true);
      await h.message((m) => textOf(m).includes('example.com/ends') && /— done/.test(m.text));
      // Nobody opens anything again: the job's end re-publishes the tab that showed it running.
      await homeSays(h, ADMIN, idle, 5_000);
    } finally {
      h.sandbox.setKnobs({ latencyMs: 0 });
    }
  });

  it('shows the job of an approval given from the tab as ended right after its card says done', async () => {
    const card = await askDeploy(h, String(h.sandbox.records('harbor-law', 'blogs')[0]?.id));
    await h.driver.homeOpened({ user: ADMIN });
    const home = await homeSays(h, ADMIN, /home_approve/);
    // The deploy's POST outlasts the tab's 2 s debounce: the tab published after the click shows it running.
    h.sandbox.setKnobs({ latencyMs: 2_500 });
    try {
      await h.driver.click(home, { actionId: 'home_approve' }, { user: ADMIN });
      await h.slack.waitFor(() => /Approved by <@UADMIN>.*done/.test(textOf(cardNow(h, card))), {
        what: 'the card to say done',
        timeoutMs: 15_000,
      });
    } finally {
      h.sandbox.setKnobs({ latencyMs: 0 });
    }
    await homeSays(h, ADMIN, idle, 1_500);
  });
});
