import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { processActionJob } from '../../src/jobs/action-job.js';
import { leaseKey } from '../../src/jobs/lease.js';
import { actionFingerprint } from '../../src/store/ledger.js';
import { created, type JobsHarness, startJobsHarness } from '../fixtures/jobs-harness.js';

/**
 * Two runs of one job (BullMQ is at-least-once; a blocked event loop lets a stalled job run twice): whatever
 * the interleaving, the gateway sees one POST per job unless a person asks for another.
 */

let h: JobsHarness;

beforeAll(async () => {
  h = await startJobsHarness('jobs-overlap', { workers: false });
});
afterAll(async () => {
  await h?.close();
});
beforeEach(() => {
  h.sandbox.reset();
});
afterEach(async () => {
  await Promise.all(h.workers.splice(0).map((w) => w.close()));
});

const posts = () => h.sandbox.requests().filter((r) => r.method === 'POST');
const blogReads = () => h.sandbox.requests().filter((r) => r.method === 'GET' && r.resource === 'blogs');

/** Queues a blog job and rewrites its stored data as an earlier run would have left it. */
async function queueAsIfPosting(keyword: string, patch: Record<string, unknown>) {
  const data = h.jobData('generate_blog', { keyword });
  await h.queue.enqueue(data);
  const job = await h.queue.findJob(data.jobKey);
  const entry = h.catalogue.byAction('generate_blog')!;
  await job!.updateData({
    ...job!.data,
    step: 'posting',
    fingerprint: actionFingerprint(entry, data.clientId, data.fields),
    ...patch,
  });
  return data;
}

describe('overlapping runs of one action job', () => {
  it('a second run holding a copy read before the first run finished does not POST again', async () => {
    const data = h.jobData('generate_blog', { keyword: 'sump pump install' });
    await h.queue.enqueue(data);
    // The overlapping run's copy of the job: read while the job was still "queued".
    const stale = await h.queue.findJob(data.jobKey);
    expect(stale?.data.step).toBe('queued');
    h.startWorkers();
    const first = await h.settled(data.jobKey);
    expect(first.job.returnvalue.outcome).toBe('done');

    const second = await processActionJob(stale!, undefined, h.jobDeps());
    expect(second.outcome).toBe('done');
    expect(posts()).toHaveLength(1);
    expect(created(h.sandbox, 'generate_blog')).toBe(1);
  });

  it('waits for an earlier POST that may still be in flight before it trusts "no record yet"', async () => {
    // Another worker checkpointed "posting" a moment ago and its POST has not landed yet.
    const data = await queueAsIfPosting('garbage disposal repair', { startedAt: Date.now() });
    h.startWorkers({ actionTimeoutMs: 1_000 });
    await h.slack.waitFor(() => blogReads().length > 0, { timeoutMs: 5_000 });
    // Only now does that earlier POST reach the gateway and create the record.
    await h.gateway.act('generate_blog', data.clientId, data.fields, { timeoutMs: 2_000 });

    const { state, job } = await h.settled(data.jobKey);
    expect(state).toBe('completed');
    expect(job.returnvalue).toMatchObject({ outcome: 'done', reconciled: true });
    expect(created(h.sandbox, 'generate_blog')).toBe(1);
    expect(posts()).toHaveLength(1);
  });

  it('after a lost connection, gives the gateway a full timeout to land its write before posting again', async () => {
    h.sandbox.failNext('drop_before_action', { method: 'POST', action: 'generate_blog' });
    h.startWorkers({ actionTimeoutMs: 1_000 });
    const data = h.jobData('generate_blog', { keyword: 'well pump repair' });
    await h.queue.enqueue(data);
    // The gateway was still working when the connection went: its record lands well after the first look.
    await h.slack.waitFor(() => blogReads().length > 0, { timeoutMs: 5_000 });
    await new Promise((r) => setTimeout(r, 400));
    const late = { id: 'blog_late', keyword: 'well pump repair', created_at: new Date().toISOString() };
    h.sandbox.insertRows(data.clientId, 'blogs', [late]);
    const { state, job } = await h.settled(data.jobKey);
    expect(state).toBe('completed');
    expect(job.returnvalue).toMatchObject({ outcome: 'done', reconciled: true, recordId: 'blog_late' });
    expect(posts()).toHaveLength(1);
  });

  it('a run whose lease ran out while it reconciled does not POST while another run holds it', async () => {
    const longAgo = Date.now() - 60_000;
    const data = await queueAsIfPosting('slab leak detection', {
      startedAt: longAgo,
      trustAbsentAfter: longAgo,
    });
    h.sandbox.setKnobs({ latencyMs: 300 });
    h.startWorkers();
    await h.slack.waitFor(() => blogReads().length > 0, { timeoutMs: 5_000 });
    // While the read is under way the lease expires and another run of the job takes it.
    const key = leaseKey(h.prefix, data.jobKey);
    await h.redis.set(key, 'another-run', 'PX', 700);
    await new Promise((r) => setTimeout(r, 650));
    expect(posts()).toHaveLength(0);

    h.sandbox.setKnobs({ latencyMs: 0 });
    const { state, job } = await h.settled(data.jobKey);
    expect(state).toBe('completed');
    expect(job.returnvalue.outcome).toBe('done');
    expect(posts()).toHaveLength(1);
    expect(created(h.sandbox, 'generate_blog')).toBe(1);
  });
});
