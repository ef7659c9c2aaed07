/**
 * Guards that cannot switch off by accident: deploys and emails are always guarded, the
 * variable only adds (blank means unset, any case), a name no action has stops the start, and the worker
 * refuses a guarded job that carries no approved approval, whoever queued it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActionJobData } from '../../src/jobs/job-data.js';
import { SlackDriver } from '../../src/local/driver.js';
import { startFakeSlack } from '../../src/local/fake-slack/index.js';
import { silentLogger } from '../../src/logger.js';
import { startRuntime } from '../../src/runtime.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { slackReplyTarget } from '../../src/slack/reply-target.js';
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

/** The job once BullMQ has finished it (completed or failed for good). */
async function finished(h: Harness, jobKey: string) {
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
    const job = await h.runtime.services.queue.findJob(jobKey);
    if (job?.finishedOn) return job;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`job ${jobKey} did not finish`);
}

const EMAIL = 'email to=ed@boston-family-blog.example subject="Hello" html="<p>Hi</p>"';

/** A guarded command asks for an approval (a card in the channel) and sends nothing to the gateway. */
async function expectRefused(h: Harness, command: string, action: string): Promise<void> {
  const before = new Set(h.slack.messages(CHANNEL).map((m) => m.ts));
  const views = h.slack.views(MEMBER).length;
  await h.gateway(command);
  await h.slack.waitFor(
    () =>
      h.slack.messages(CHANNEL).find((m) => !before.has(m.ts) && m.text.startsWith('Approval needed')) ??
      (h.slack.views(MEMBER).length > views ? true : undefined),
    { what: `the approval card (or form) of ${command}` },
  );
  await new Promise((r) => setTimeout(r, 200));
  expect(h.posts(action)).toEqual([]);
}

describe('a blank GATEWAY_GUARDED_ACTIONS', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('e2e-guards-blank', { GATEWAY_GUARDED_ACTIONS: '  ' });
    await bind(h, 'harbor-law');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('still guards deploy_blog and send_prospect_email: nothing reaches the gateway', async () => {
    await expectRefused(h, 'deploy', 'deploy_blog');
    await expectRefused(h, EMAIL, 'send_prospect_email');
  });
});

describe('an extra guarded action, in another case', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('e2e-guards-extra', {
      GATEWAY_GUARDED_ACTIONS: ' Generate_FAQ ,',
      // Discovered-only actions are admins' unless allowed; allowed here so the member meets the guard.
      GATEWAY_ALLOWED_ACTIONS: 'generate_faq',
    });
    await bind(h, 'harbor-law');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('guards the discovered action it names and keeps both defaults', async () => {
    await expectRefused(h, 'run generate_faq topic="wills"', 'generate_faq');
    await expectRefused(h, 'deploy', 'deploy_blog');
    await expectRefused(h, EMAIL, 'send_prospect_email');
  });

  it('still runs an action it does not name', async () => {
    await h.runAction('audit https://harbor-law.example/guards');
    await h.slack.waitFor(() => h.posts('seo_audit')[0], { what: 'the audit POST' });
  });
});

describe('a guarded name no action has', () => {
  it('stops the start with a message naming it', async () => {
    await expect(
      startHarness('e2e-guards-typo', { GATEWAY_GUARDED_ACTIONS: 'generate_blog,generate_fqa' }),
    ).rejects.toThrow(/GATEWAY_GUARDED_ACTIONS names "generate_fqa", which neither the gateway spec nor/);
  });
});

describe('the worker', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('e2e-guards-worker');
    await bind(h, 'harbor-law');
  });
  afterAll(async () => {
    await h?.close();
  });

  /** A deploy job as a web process that did not guard it (an older version, another config) would queue it. */
  const deployJob = (jobKey: string, more: Partial<ActionJobData> = {}): ActionJobData => ({
    jobKey,
    action: 'deploy_blog',
    clientId: 'harbor-law',
    clientLabel: 'Harbor Law',
    fields: { post_id: 'blog_0001' },
    replyTo: slackReplyTarget(CHANNEL),
    requestedBy: MEMBER,
    enqueuedAt: Date.now(),
    ...more,
  });

  it.each([
    ['no approval', {}],
    ['an approval that is only pending', { approval: { id: 'appr-1', state: 'pending' as const } }],
    // Only the approval record in Redis counts: a job that merely says "approved" is refused.
    ['an approval it only claims', { approval: { id: 'appr2', state: 'approved' as const } }],
  ])('refuses a guarded job with %s, says so in its thread, and sends nothing', async (_what, more) => {
    const jobKey = `unapproved-${Math.random().toString(36).slice(2)}`;
    await h.runtime.services.queue.enqueue(deployJob(jobKey, more));
    const job = await finished(h, jobKey);
    expect(await job.getState()).toBe('failed');
    expect(job.attemptsMade).toBe(1);
    expect(job.failedReason).toContain('job_approval_missing');
    const ts = job.data.statusTs ?? '';
    const status = h.slack.messages(CHANNEL).find((m) => m.ts === ts);
    expect(status && textOf(status)).toContain('needs an approval');
    const thread = await h.slack.waitFor(
      () => h.slack.thread(CHANNEL, ts).at(0) && h.slack.thread(CHANNEL, ts),
      {
        what: 'the thread reply',
      },
    );
    expect(thread.map(textOf).join('\n')).toContain('carried none');
    expect(thread.map(textOf).join('\n')).not.toContain('job_retry');
    expect(h.posts('deploy_blog')).toEqual([]);
  });
});

describe('a guarded name the spec lacks, while the gateway is down at start', () => {
  it('starts anyway, keeps the name guarded, and refuses the action once the gateway lists it', async () => {
    const sandbox = await startSandbox({ port: 0 });
    const slack = await startFakeSlack();
    const prefix = uniquePrefix('e2e-guards-down');
    // Every discovery attempt of the start fails (the client retries a GET five times).
    sandbox.failNext('500', { method: 'GET', count: 5 });
    const config = testConfig(slack, prefix, {
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      GATEWAY_BASE_URL: sandbox.url,
      GATEWAY_API_KEY: 'sandbox-key',
      GATEWAY_ADMINS: ADMIN,
      GATEWAY_GUARDED_ACTIONS: 'generate_faq',
      GATEWAY_ALLOWED_ACTIONS: 'generate_faq',
    });
    const runtime = await startRuntime(config, silentLogger());
    try {
      // The start's check met a gateway that answered nothing but 500s, and the bot started all the same.
      expect(
        sandbox
          .requests()
          .slice(0, 5)
          .map((r) => r.status),
      ).toEqual([500, 500, 500, 500, 500]);
      const driver = new SlackDriver({
        eventsUrl: `http://127.0.0.1:${runtime.port}/slack/events`,
        signingSecret: SIGNING_SECRET,
        slack,
      });
      await driver.command('use harbor-law', { user: ADMIN, channel: CHANNEL });
      await slack.waitFor(() => slack.messages(CHANNEL).find((m) => m.text.includes('now bound to')), {
        what: 'the binding',
      });
      await driver.command('run generate_faq topic="wills"', { user: MEMBER, channel: CHANNEL });
      await slack.waitFor(() => slack.messages(CHANNEL).find((m) => m.text.startsWith('Approval needed')), {
        what: 'the approval card',
      });
      expect(sandbox.requests().filter((r) => r.method === 'POST')).toEqual([]);
    } finally {
      await runtime.stop(5_000);
      await slack.close();
      await sandbox.close();
      await testRedis(prefix).cleanup();
    }
  });
});
