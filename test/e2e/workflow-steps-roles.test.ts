/**
 * Workflow Builder steps across processes as deployed: one web role takes the step events (and the approval's
 * click), two worker roles run the jobs; one Redis, one gateway, one Slack. The run's token goes from the web
 * process to whichever worker ends the step, through Redis alone, and every step ends exactly once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SlackDriver } from '../../src/local/driver.js';
import { type FakeSlack, startFakeSlack } from '../../src/local/fake-slack/index.js';
import { silentLogger } from '../../src/logger.js';
import { type Runtime, startRuntime } from '../../src/runtime.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { ADMIN, CHANNEL, MEMBER, SIGNING_SECRET, testConfig } from '../helpers/bot-harness.js';
import { testRedis, uniquePrefix } from '../helpers/redis.js';

const RUNS = 20;
const prefix = uniquePrefix('e2e-wf-roles');
let sandbox: Sandbox;
let slack: FakeSlack;
let web: Runtime;
let workers: Runtime[] = [];
let driver: SlackDriver;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
  slack = await startFakeSlack();
  slack.simulate.joinChannel(CHANNEL, MEMBER);
  const config = testConfig(slack, prefix, { GATEWAY_BASE_URL: sandbox.url, GATEWAY_API_KEY: 'sandbox-key' });
  const worker = { reconcileGraceMs: 50, backoffMs: 50 };
  web = await startRuntime(config, silentLogger(), { roles: ['web'] });
  workers = await Promise.all(
    [1, 2].map(() => startRuntime(config, silentLogger(), { roles: ['worker'], worker })),
  );
  driver = new SlackDriver({
    eventsUrl: `http://127.0.0.1:${web.port}/slack/events`,
    signingSecret: SIGNING_SECRET,
    slack,
  });
  await driver.command('use acme-plumbing', { user: ADMIN, channel: CHANNEL });
  await slack.waitFor(() => slack.messages(CHANNEL).find((m) => m.text.includes('now bound to')), {
    what: 'the binding',
  });
}, 60_000);

afterAll(async () => {
  await Promise.all([web, ...workers].map((r) => r?.stop(5_000)));
  await slack?.close();
  await sandbox?.close();
  await testRedis(prefix).cleanup();
});

const inputs = (extra: Record<string, unknown>) => ({
  channel_id: CHANNEL,
  user: slack.functions.userContext(MEMBER),
  ...extra,
});

describe('steps with a web role and two worker roles', () => {
  it('ends every step once, each delivered twice, with the jobs spread over the workers', async () => {
    const perWorker = workers.map(() => 0);
    workers.forEach((w, i) => {
      w.workers?.worker.on('completed', (job) => {
        if (String(job.id).startsWith('wf-')) perWorker[i] = (perWorker[i] ?? 0) + 1;
      });
    });
    const first = await Promise.all(
      Array.from({ length: RUNS }, (_, i) =>
        driver.functionExecuted('seo_audit', inputs({ url: `https://acme-plumbing.example/roles-${i}` })),
      ),
    );
    const runs = first.map((s) => s.run);
    await Promise.all(runs.map((run) => driver.functionExecuted('seo_audit', {}, run)));
    await slack.waitFor(() => runs.every((r) => slack.functions.run(r.executionId)?.ended?.ok), {
      what: 'every step to complete',
      timeoutMs: 30_000,
    });
    await new Promise((r) => setTimeout(r, 500));
    const audits = sandbox.requests().filter((r) => r.method === 'POST' && r.action === 'seo_audit');
    expect(audits).toHaveLength(RUNS);
    const ends = slack.calls.filter((c) => c.method.startsWith('functions.'));
    expect(ends).toHaveLength(RUNS);
    expect(ends.every((c) => c.ok)).toBe(true);
    expect(perWorker.reduce((a, b) => a + b, 0)).toBe(RUNS);
    for (const jobs of perWorker) expect(jobs).toBeGreaterThan(0);
  }, 60_000);

  it('completes a deploy step in a worker after the click on the web role', async () => {
    const postId = String(sandbox.records('acme-plumbing', 'blogs')[0]?.id);
    const before = slack.messages(CHANNEL).length;
    const { run } = await driver.functionExecuted('deploy_blog', inputs({ post_id: postId }));
    const card = await slack.waitFor(
      () =>
        slack
          .messages(CHANNEL)
          .slice(before)
          .find((m) => m.text.startsWith('Approval needed')),
      { what: 'the approval card' },
    );
    await driver.click(card, { actionId: 'approval_approve' }, { user: ADMIN });
    const end = await slack.waitFor(() => slack.functions.run(run.executionId)?.ended, {
      what: 'the deploy step to end',
      timeoutMs: 15_000,
    });
    expect(end).toMatchObject({ ok: true, outputs: { status: 'done' } });
    expect(sandbox.requests().filter((r) => r.method === 'POST' && r.action === 'deploy_blog')).toHaveLength(
      1,
    );
  }, 30_000);
});
