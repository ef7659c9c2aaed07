import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { processActionJob } from '../../src/jobs/action-job.js';
import { ActionLedger } from '../../src/store/ledger.js';
import { allText, CHANNEL, created, type JobsHarness, startJobsHarness } from '../fixtures/jobs-harness.js';

/**
 * Final answers stay final and every job ends with a word in its thread: a Slack fault while telling the
 * channel never turns a status:error or a 4xx into a BullMQ retry (and a second POST), and a job that fails
 * in a way no path expected is still reported.
 */

let h: JobsHarness;

beforeAll(async () => {
  // No test here is about a slow POST: on a loaded machine a 300 ms limit would turn one POST into several.
  h = await startJobsHarness('jobs-final', { workers: false, actionTimeoutMs: 5_000 });
});
afterAll(async () => {
  await h?.close();
});
beforeEach(() => {
  h.sandbox.reset();
  h.startWorkers();
});
afterEach(async () => {
  h.slack.simulate.addBotTo(CHANNEL);
  await Promise.all(h.workers.splice(0).map((w) => w.close()));
});

const posts = () => h.sandbox.requests().filter((r) => r.method === 'POST');

describe('final failures of action jobs', () => {
  it('a status:error stays final when Slack cannot be told: one POST, no automatic retry', async () => {
    h.slack.simulate.removeBotFrom(CHANNEL);
    h.sandbox.failNext('status_error', { method: 'POST', action: 'generate_blog' });
    const data = h.jobData('generate_blog', { keyword: 'hydro jetting' });
    await h.queue.enqueue(data);
    const { state, job } = await h.settled(data.jobKey);
    expect(state).toBe('failed');
    expect(job.attemptsMade).toBe(1);
    expect(job.failedReason).toContain('gateway_action_failed');
    expect(posts()).toHaveLength(1);
    expect(created(h.sandbox, 'generate_blog')).toBe(0);
  });

  it('a 403 stays final when Slack cannot be told: never retried', async () => {
    h.slack.simulate.removeBotFrom(CHANNEL);
    const data = h.jobData('seo_audit', { url: 'https://x.example/' }, { clientId: 'not-linked-client' });
    await h.queue.enqueue(data);
    const { state, job } = await h.settled(data.jobKey);
    expect(state).toBe('failed');
    expect(job.attemptsMade).toBe(1);
    expect(posts()).toHaveLength(1);
  });

  it('an action the gateway no longer offers fails with a message and a Retry button, not in silence', async () => {
    const data = h.jobData('retired_action', { url: 'https://acmeplumbing.example/' });
    await h.queue.enqueue(data);
    const { state } = await h.settled(data.jobKey);
    expect(state).toBe('failed');
    const status = await h.slack.waitFor(() =>
      h.slack.messages(CHANNEL).find((m) => m.text.includes('retired_action') && m.text.includes('failed')),
    );
    const reply = await h.slack.waitFor(() => h.slack.thread(CHANNEL, status.ts).at(-1));
    expect(allText(reply)).toContain('job_unknown_action');
    expect(allText(reply)).toContain(`"action_id":"job_retry","value":"${data.jobKey}"`);
    expect(posts()).toHaveLength(0);
  });

  it('asks a person when the record cannot be looked for on any attempt, instead of failing silently', async () => {
    h.sandbox.failNext('drop_after_action', { method: 'POST', action: 'generate_blog' });
    h.sandbox.failNext('500', { method: 'GET', resource: 'blogs', count: 100 });
    const data = h.jobData('generate_blog', { keyword: 'trenchless sewer repair' });
    await h.queue.enqueue(data);
    const { state, job } = await h.settled(data.jobKey);
    expect(state).toBe('completed');
    expect(job.returnvalue.outcome).toBe('needs-attention');
    const reply = h.slack.thread(CHANNEL, String(job.data.statusTs)).at(-1);
    expect(allText(reply)).toContain(`"action_id":"job_retry_anyway","value":"${data.jobKey}"`);
    expect(allText(reply)).toContain('could not look for the record');
    expect(posts()).toHaveLength(1);
    expect(created(h.sandbox, 'generate_blog')).toBe(1);
  });

  it('a job BullMQ fails for stalling too often mid-POST is reported as an unknown outcome, not dropped', async () => {
    await Promise.all(h.workers.splice(0).map((w) => w.close()));
    const data = h.jobData('generate_blog', { keyword: 'water softener install' });
    await h.queue.enqueue(data);
    const job = await h.queue.findJob(data.jobKey);
    await job!.updateData({ ...job!.data, step: 'posting', startedAt: Date.now() - 60_000 });
    // What BullMQ's stalled-job check writes when a job's workers died more often than maxStalledCount.
    await h.redis.hset(`${h.prefix}:actions:${data.jobKey}`, 'defa', 'job stalled more than allowable limit');
    h.startWorkers();
    const { state } = await h.settled(data.jobKey);
    expect(state).toBe('failed');
    const status = await h.slack.waitFor(() =>
      h.slack.messages(CHANNEL).find((m) => m.text.includes('water softener install')),
    );
    const reply = await h.slack.waitFor(() => h.slack.thread(CHANNEL, status.ts).at(-1));
    expect(status.text).toContain('needs attention');
    expect(allText(reply)).toContain(`"action_id":"job_retry_anyway","value":"${data.jobKey}"`);
    expect(allText(reply)).toContain('job_stalled');
    expect(posts()).toHaveLength(0);
  });

  it('a fault while backing off after a slow success does not lose the success', async () => {
    await Promise.all(h.workers.splice(0).map((w) => w.close()));
    const data = h.jobData('generate_blog', { keyword: 'backflow testing' });
    await h.queue.enqueue(data);
    const job = await h.queue.findJob(data.jobKey);
    const deps = h.jobDeps({
      slowMs: 0,
      backOff: async () => {
        throw new Error('redis went away');
      },
    });
    const outcome = await processActionJob(job!, undefined, deps);
    expect(outcome.outcome).toBe('done');
    const ledger = new ActionLedger(h.redis, h.prefix);
    expect((await ledger.findByJob(data.jobKey))?.recordId).toBe(outcome.recordId);
    expect(posts()).toHaveLength(1);
  });
});
