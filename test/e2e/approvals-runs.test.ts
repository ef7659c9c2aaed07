/**
 * Approvals, the parts that need their own bot: an expiry the card shows without a click,
 * self-approval when allowed, a click after the bot restarted, and fifty concurrent Approve clicks on two web
 * processes sharing one Redis, of which exactly one runs the action.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SlackDriver } from '../../src/local/driver.js';
import { type FakeMessage, startFakeSlack } from '../../src/local/fake-slack/index.js';
import { silentLogger } from '../../src/logger.js';
import { startRuntime } from '../../src/runtime.js';
import { startSandbox } from '../../src/sandbox/index.js';
import {
  ADMIN,
  bind,
  CHANNEL,
  type Harness,
  MEMBER,
  SIGNING_SECRET,
  startHarness,
  testConfig,
  textOf,
} from '../helpers/bot-harness.js';
import { testRedis, uniquePrefix } from '../helpers/redis.js';

const GROUP = 'SDEPLOYERS';
const APPROVERS = Array.from({ length: 50 }, (_, i) => `UAPPR${String(i).padStart(2, '0')}`);

const current = (h: Harness, card: FakeMessage) =>
  h.slack.messages(CHANNEL).find((m) => m.ts === card.ts) ?? card;

async function askDeploy(h: Harness, user = MEMBER): Promise<FakeMessage> {
  const before = new Set(h.slack.messages(CHANNEL).map((m) => m.ts));
  const postId = String(h.sandbox.records('harbor-law', 'blogs')[0]?.id);
  await h.gateway(`deploy ${postId}`, { user });
  return h.slack.waitFor(
    () => h.slack.messages(CHANNEL).find((m) => !before.has(m.ts) && m.text.startsWith('Approval needed')),
    { what: 'the approval card' },
  );
}

const cardSays = (h: Harness, card: FakeMessage, pattern: RegExp, timeoutMs = 10_000) =>
  h.slack.waitFor(() => (pattern.test(textOf(current(h, card))) ? current(h, card) : undefined), {
    what: `the card to say ${pattern}`,
    timeoutMs,
  });

describe('an approval with a short expiry, self-approval allowed', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('e2e-approvals-ttl', {
      // Short enough to watch a card expire, long enough that the self-approval test's click (within the same
      // expiry) is safe on a loaded machine.
      GATEWAY_APPROVAL_TTL: '4000ms',
      GATEWAY_ALLOW_SELF_APPROVAL: 'true',
    });
    await bind(h, 'harbor-law');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('lets the requester approve its own request when GATEWAY_ALLOW_SELF_APPROVAL=true', async () => {
    const card = await askDeploy(h, ADMIN);
    await h.driver.click(card, { actionId: 'approval_approve' }, { user: ADMIN });
    await cardSays(h, card, /Approved by <@UADMIN>.*done/);
    expect(h.posts('deploy_blog')).toHaveLength(1);
  });

  it('expires: the card says so without a click, and a late Approve runs nothing', async () => {
    const card = await askDeploy(h);
    const stale = structuredClone(card);
    const expired = await cardSays(h, card, /Expired at/, 15_000);
    expect(JSON.stringify(expired.blocks)).not.toContain('approval_approve');
    const seen = h.slack.ephemerals(CHANNEL, ADMIN).length;
    await h.driver.click(stale, { actionId: 'approval_approve' }, { user: ADMIN });
    await h.slack.waitFor(
      () =>
        h.slack
          .ephemerals(CHANNEL, ADMIN)
          .slice(seen)
          .find((m) => /has expired/.test(textOf(m))),
      { what: 'the refusal of a late approval' },
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(h.posts('deploy_blog')).toHaveLength(1);
  });
});

describe('approvals across restarts and processes', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('e2e-approvals-runs', { GATEWAY_APPROVERS: `${ADMIN},${GROUP}` });
    h.slack.simulate.setUserGroup(GROUP, APPROVERS);
    await bind(h, 'harbor-law');
  });
  afterAll(async () => {
    await h?.close();
  });

  /** Another bot process on the same Redis and Slack stand-in: ROLE=web, or everything. */
  async function anotherBot(role: 'web' | 'all') {
    const config = testConfig(h.slack, h.prefix, {
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      GATEWAY_BASE_URL: h.sandbox.url,
      GATEWAY_API_KEY: 'sandbox-key',
      GATEWAY_ADMINS: ADMIN,
      GATEWAY_APPROVERS: `${ADMIN},${GROUP}`,
      GATEWAY_ACTION_RATE: '1000/1s',
      ROLE: role,
    });
    const runtime = await startRuntime(config, silentLogger());
    const driver = new SlackDriver({
      eventsUrl: `http://127.0.0.1:${runtime.port}/slack/events`,
      signingSecret: SIGNING_SECRET,
      slack: h.slack,
    });
    return { runtime, driver };
  }

  it('fifty concurrent Approve clicks on two web processes make exactly one POST; the others are told', async () => {
    const second = await anotherBot('web');
    try {
      const card = await askDeploy(h);
      const before = h.posts('deploy_blog').length;
      await Promise.all(
        APPROVERS.map((user, i) =>
          (i % 2 ? second.driver : h.driver).click(card, { actionId: 'approval_approve' }, { user }),
        ),
      );
      await cardSays(h, card, /done/);
      await new Promise((r) => setTimeout(r, 500));
      expect(h.posts('deploy_blog')).toHaveLength(before + 1);
      const told = await h.slack.waitFor(
        () => {
          const n = APPROVERS.filter((u) =>
            h.slack.ephemerals(CHANNEL, u).some((m) => /already approved/.test(textOf(m))),
          ).length;
          return n === APPROVERS.length - 1 ? n : undefined;
        },
        { what: 'the other 49 clickers told it was already approved' },
      );
      expect(told).toBe(49);
    } finally {
      await second.runtime.stop(5_000);
    }
  });
});

describe('a bot restarted between the request and the click', () => {
  it('approves the card posted before the restart: all state is in Redis', async () => {
    const sandbox = await startSandbox({ port: 0 });
    const slack = await startFakeSlack();
    const prefix = uniquePrefix('e2e-approvals-restart');
    const config = testConfig(slack, prefix, {
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      GATEWAY_BASE_URL: sandbox.url,
      GATEWAY_API_KEY: 'sandbox-key',
      GATEWAY_ADMINS: ADMIN,
    });
    const start = async () => {
      const runtime = await startRuntime(config, silentLogger());
      const driver = new SlackDriver({
        eventsUrl: `http://127.0.0.1:${runtime.port}/slack/events`,
        signingSecret: SIGNING_SECRET,
        slack,
      });
      return { runtime, driver };
    };
    let bot = await start();
    try {
      await bot.driver.command('use harbor-law', { user: ADMIN, channel: CHANNEL });
      await slack.waitFor(() => slack.messages(CHANNEL).find((m) => m.text.includes('now bound to')), {
        what: 'the binding',
      });
      const postId = String(sandbox.records('harbor-law', 'blogs')[0]?.id);
      await bot.driver.command(`deploy ${postId}`, { user: MEMBER, channel: CHANNEL });
      const card = await slack.waitFor(
        () => slack.messages(CHANNEL).find((m) => m.text.startsWith('Approval needed')),
        { what: 'the approval card' },
      );
      await bot.runtime.stop(5_000);
      bot = await start();
      await bot.driver.click(card, { actionId: 'approval_approve' }, { user: ADMIN });
      await slack.waitFor(
        () => {
          const now = slack.messages(CHANNEL).find((m) => m.ts === card.ts);
          return now && /Approved by <@UADMIN>.*done/.test(textOf(now)) ? now : undefined;
        },
        { what: 'the card to say done', timeoutMs: 10_000 },
      );
      const posts = sandbox.requests().filter((r) => r.method === 'POST' && r.action === 'deploy_blog');
      expect(posts).toHaveLength(1);
      expect(posts[0]?.fields).toEqual({ post_id: postId });
    } finally {
      await bot.runtime.stop(5_000);
      await slack.close();
      await sandbox.close();
      await testRedis(prefix).cleanup();
    }
  });
});

describe('an approval asked for by the only approver, self-approval off', () => {
  let h: Harness;
  beforeAll(async () => {
    // The approvers are the admins: ADMIN alone.
    h = await startHarness('e2e-approvals-alone');
    await bind(h, 'harbor-law');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('tells the requester nobody else can approve it and what an admin can change', async () => {
    const card = await askDeploy(h, ADMIN);
    const seen = h.slack.ephemerals(CHANNEL, ADMIN).length;
    await h.driver.click(card, { actionId: 'approval_approve' }, { user: ADMIN });
    const told = await h.slack.waitFor(
      () =>
        h.slack
          .ephemerals(CHANNEL, ADMIN)
          .slice(seen)
          .find((m) => /only approver/.test(textOf(m))),
      { what: 'the refusal to the only approver' },
    );
    const text = textOf(told);
    expect(text).not.toContain('another approver must decide');
    expect(text).toContain('nobody can approve it yet');
    expect(text).toMatch(/add approvers \(GATEWAY_APPROVERS\)/);
    expect(text).toContain('GATEWAY_ALLOW_SELF_APPROVAL=true');
    expect(textOf(current(h, card))).toContain('Waiting for an approver');
    expect(h.posts('deploy_blog')).toHaveLength(0);
  });
});
