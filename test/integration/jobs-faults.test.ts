import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ActionLedger } from '../../src/store/ledger.js';
import { allText, CHANNEL, created, type JobsHarness, startJobsHarness } from '../fixtures/jobs-harness.js';

/** Gateway faults on a POST: each proves from the sandbox's own counts that nothing ran twice and no job was lost. */

let h: JobsHarness;

beforeAll(async () => {
  h = await startJobsHarness('jobs-faults');
});
afterAll(async () => {
  await h?.close();
});
beforeEach(() => {
  h.sandbox.reset();
});

const posts = () => h.sandbox.requests().filter((r) => r.method === 'POST');

async function runBlog(keyword: string) {
  const data = h.jobData('generate_blog', { keyword });
  await h.queue.enqueue(data);
  return { data, ...(await h.settled(data.jobKey)) };
}

describe('action jobs under gateway faults', () => {
  it('500 before the action: reconciles, finds nothing, posts again and creates exactly one record', async () => {
    h.sandbox.failNext('500', { method: 'POST', action: 'generate_blog' });
    const { state, job } = await runBlog('drain cleaning');
    expect(state).toBe('completed');
    expect(job.returnvalue.outcome).toBe('done');
    expect(posts()).toHaveLength(2);
    // The second POST came only after a read of the blogs resource.
    const order = h.sandbox.requests().map((r) => `${r.method}:${r.resource ?? ''}`);
    expect(order.indexOf('GET:blogs')).toBeGreaterThan(order.indexOf('POST:blogs'));
    expect(order.lastIndexOf('POST:blogs')).toBeGreaterThan(order.indexOf('GET:blogs'));
    expect(created(h.sandbox, 'generate_blog')).toBe(1);
  });

  it.each(['500_after_action', 'drop_after_action', 'timeout'] as const)(
    '%s: the record was created; reconciliation finds it and the job is done without a second POST',
    async (fault) => {
      h.sandbox.failNext(fault, { method: 'POST', action: 'generate_blog' });
      const { state, job } = await runBlog(`leak detection ${fault}`);
      expect(state).toBe('completed');
      expect(job.returnvalue).toMatchObject({ outcome: 'done', reconciled: true });
      expect(posts()).toHaveLength(1);
      expect(created(h.sandbox, 'generate_blog')).toBe(1);
      const recordId = h.sandbox.records('acme-plumbing', 'blogs').at(-1)?.id;
      expect(job.returnvalue.recordId).toBe(recordId);
      const reply = h.slack.thread(CHANNEL, String(job.data.statusTs)).at(-1);
      expect(allText(reply)).toContain('Found the record the first attempt created');
      const ledger = new ActionLedger(h.redis, h.prefix);
      expect((await ledger.findByJob(job.data.jobKey))?.recordId).toBe(recordId);
    },
  );

  it('does not take a record another job made with the same fields for its own', async () => {
    const first = await runBlog('gas line repair');
    expect(first.state).toBe('completed');
    h.sandbox.failNext('500', { method: 'POST', action: 'generate_blog' });
    const second = await runBlog('gas line repair');
    expect(second.job.returnvalue.reconciled).toBeUndefined();
    expect(second.job.returnvalue.recordId).not.toBe(first.job.returnvalue.recordId);
    expect(created(h.sandbox, 'generate_blog')).toBe(2);
  });

  it('an action with no readable record and a dropped answer needs a person: Retry anyway, one record', async () => {
    h.sandbox.failNext('drop_after_action', { method: 'POST', action: 'index_url' });
    const data = h.jobData('index_url', { url: 'https://acmeplumbing.example/new-page' });
    await h.queue.enqueue(data);
    const { state, job } = await h.settled(data.jobKey);
    expect(state).toBe('completed');
    expect(job.returnvalue.outcome).toBe('needs-attention');
    expect(created(h.sandbox, 'index_url')).toBe(1);
    expect(posts()).toHaveLength(1);
    const reply = h.slack.thread(CHANNEL, String(job.data.statusTs)).at(-1);
    expect(allText(reply)).toContain('Retry anyway');
    expect(allText(reply)).toContain(`"action_id":"job_retry_anyway","value":"${data.jobKey}"`);
    const status = h.slack.messages(CHANNEL).find((m) => m.ts === job.data.statusTs);
    expect(status?.text).toContain('needs attention');
    expect((await h.queue.channelJobs(CHANNEL, 10)).jobs.find((j) => j.jobKey === data.jobKey)?.state).toBe(
      'needs-attention',
    );

    // The person's "Retry anyway" click is tested end to end in test/e2e/actions.test.ts.
  });

  it('a safe-to-repeat action simply runs again after an unknown outcome', async () => {
    h.sandbox.failNext('500_after_action', { method: 'POST', action: 'fetch_backlinks' });
    const data = h.jobData('fetch_backlinks', {});
    await h.queue.enqueue(data);
    const { state, job } = await h.settled(data.jobKey);
    expect(state).toBe('completed');
    expect(job.returnvalue.outcome).toBe('done');
    expect(posts()).toHaveLength(2);
  });

  it('gives up after repeated 500s (five attempts, docs/gateway-api.md §7) with a message and a Retry button, having created nothing', async () => {
    h.sandbox.failNext('500', { method: 'POST', action: 'generate_blog', count: 5 });
    const { state, job } = await runBlog('sewer line repair');
    expect(state).toBe('failed');
    expect(created(h.sandbox, 'generate_blog')).toBe(0);
    expect(posts()).toHaveLength(5);
    const reply = h.slack.thread(CHANNEL, String(job.data.statusTs)).at(-1);
    expect(allText(reply)).toContain('"action_id":"job_retry"');
  });
});
