import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { claimOnce, claimOnceReading } from '../../src/store/claims.js';
import { allText, CHANNEL, created, type JobsHarness, startJobsHarness } from '../fixtures/jobs-harness.js';

let h: JobsHarness;

beforeAll(async () => {
  h = await startJobsHarness('jobs-queue');
});
afterAll(async () => {
  await h?.close();
});
beforeEach(() => {
  h.sandbox.reset();
});

async function statusMessage(text: string) {
  const ts = await h.slack.waitFor(() => h.slack.messages(CHANNEL).find((m) => m.text.includes(text))?.ts);
  return ts;
}

describe('action queue', () => {
  it('posts the action to the gateway, updates the status message and replies with the result in its thread', async () => {
    const posted = await h.web.chat.postMessage({ channel: CHANNEL, text: 'queued: blog' });
    const data = h.jobData(
      'generate_blog',
      { keyword: 'best plumber austin' },
      { statusTs: String(posted.ts) },
    );
    const queued = await h.queue.enqueue(data);
    expect(queued).toMatchObject({ jobId: data.jobKey, repeat: false });

    const { state, job } = await h.settled(data.jobKey);
    expect(state).toBe('completed');
    expect(job.returnvalue.outcome).toBe('done');
    const posts = h.sandbox.requests().filter((r) => r.method === 'POST');
    expect(posts).toHaveLength(1);
    expect(posts[0]).toMatchObject({
      action: 'generate_blog',
      clientId: 'acme-plumbing',
      fields: { keyword: 'best plumber austin' },
      key: 'sandbox-key',
    });
    const status = h.slack.messages(CHANNEL).find((m) => m.ts === posted.ts);
    expect(status?.text).toContain(
      'Blog article about “best plumber austin” for Acme Plumbing &amp; Heating',
    );
    expect(status?.text).toContain('<@UMEMBER>');
    expect(status?.text).toContain('done');
    const thread = h.slack.thread(CHANNEL, String(posted.ts));
    expect(thread).toHaveLength(1);
    expect(allText(thread[0])).toContain('Best Plumber Austin: a complete guide');
    expect(allText(thread[0])).toContain(String(job.returnvalue.recordId));
    // The job's data never carries the key.
    expect(JSON.stringify(job.data)).not.toContain('sandbox-key');
    expect(job.data).toMatchObject({ step: 'done', fingerprint: expect.any(String) });
  });

  it('runs one job and one POST when the same key is enqueued twice', async () => {
    const data = h.jobData('seo_audit', { url: 'https://acmeplumbing.example/' });
    const [a, b] = await Promise.all([h.queue.enqueue(data), h.queue.enqueue({ ...data })]);
    expect([a.repeat, b.repeat].sort()).toEqual([false, true]);
    await h.settled(data.jobKey);
    const again = await h.queue.enqueue(data);
    expect(again.repeat).toBe(true);
    await new Promise((r) => setTimeout(r, 100));
    expect(h.sandbox.requests().filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  it('posts its own status message when the web role gave none, and shows the audit result', async () => {
    const data = h.jobData('seo_audit', { url: 'https://acmeplumbing.example/services' });
    await h.queue.enqueue(data);
    const { job } = await h.settled(data.jobKey);
    expect(job.data.statusTs).toBeTruthy();
    const reply = h.slack.thread(CHANNEL, String(job.data.statusTs))[0];
    expect(allText(reply)).toMatch(/Score: \*\d+\*\/100/);
    expect(allText(reply)).toContain('Issues found');
    expect(await statusMessage('SEO audit of <https://acmeplumbing.example/services|')).toBe(
      job.data.statusTs,
    );
  });

  it('fails a status:error answer with the gateway message and a Retry button, and never retries it', async () => {
    h.sandbox.failNext('status_error', { method: 'POST', action: 'generate_blog' });
    const data = h.jobData('generate_blog', { keyword: 'water heater repair' });
    await h.queue.enqueue(data);
    const { state, job } = await h.settled(data.jobKey);
    expect(state).toBe('failed');
    expect(job.attemptsMade).toBe(1);
    expect(created(h.sandbox, 'generate_blog')).toBe(0);
    const reply = h.slack.thread(CHANNEL, String(job.data.statusTs))[0];
    expect(allText(reply)).toContain('status_code 502');
    expect(allText(reply)).toContain('Upstream generator failed');
    expect(allText(reply)).toContain(`"action_id":"job_retry","value":"${data.jobKey}"`);
    expect(h.sandbox.requests().filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  it('explains a 403 in the thread and does not retry it', async () => {
    const data = h.jobData('seo_audit', { url: 'https://x.example/' }, { clientId: 'not-linked-client' });
    await h.queue.enqueue(data);
    const { state, job } = await h.settled(data.jobKey);
    expect(state).toBe('failed');
    expect(job.attemptsMade).toBe(1);
    const reply = h.slack.thread(CHANNEL, String(job.data.statusTs))[0];
    expect(allText(reply)).toContain('HTTP 403');
    expect(allText(reply)).toContain('regenerate the key');
  });

  it('lists the channel jobs newest first with their states', async () => {
    const done = h.jobData('seo_audit', { url: 'https://acmeplumbing.example/a' });
    await h.queue.enqueue(done);
    await h.settled(done.jobKey);
    const { jobs, total } = await h.queue.channelJobs(CHANNEL, 3);
    expect(jobs[0]).toMatchObject({ jobKey: done.jobKey, state: 'done', action: 'seo_audit' });
    expect(jobs[0]?.fields).toEqual({ url: 'https://acmeplumbing.example/a' });
    expect(jobs.length).toBeLessThanOrEqual(3);
    expect(total).toBeGreaterThanOrEqual(jobs.length);
    expect(await h.queue.channelJobs('C0EMPTY', 5)).toEqual({ jobs: [], total: 0 });
  });

  it('waits out a Slack 429 on the thread reply instead of spinning, and still replies once', async () => {
    const posted = await h.web.chat.postMessage({ channel: CHANNEL, text: 'queued: audit' });
    // The harness's WebClient makes no retries of its own: the wait is the poster's doing.
    h.slack.simulate.ratelimit('chat.postMessage', 1, 1);
    const data = h.jobData(
      'seo_audit',
      { url: 'https://acmeplumbing.example/slow' },
      { statusTs: String(posted.ts) },
    );
    await h.queue.enqueue(data);
    const { state, job } = await h.settled(data.jobKey);
    expect(state).toBe('completed');
    // No failed attempt: the poster waited, not a BullMQ retry.
    expect(job.stacktrace).toEqual([]);
    const replies = h.slack.calls.filter(
      (c) => c.method === 'chat.postMessage' && c.args.thread_ts === posted.ts,
    );
    expect(replies.map((c) => c.ok)).toEqual([false, true]);
    expect(replies[1]!.at - replies[0]!.at).toBeGreaterThanOrEqual(950);
    expect(h.slack.thread(CHANNEL, String(posted.ts))).toHaveLength(1);
    expect(created(h.sandbox, 'seo_audit')).toBeLessThanOrEqual(1);
    expect(h.sandbox.requests().filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  it('claims a dedupe key once within its TTL', async () => {
    expect(await claimOnce(h.redis, h.prefix, 'click:U1:a:1', 5)).toBe(true);
    expect(await claimOnce(h.redis, h.prefix, 'click:U1:a:1', 5)).toBe(false);
    expect(await claimOnce(h.redis, h.prefix, 'click:U1:a:2', 5)).toBe(true);
    expect(await h.redis.ttl(`${h.prefix}:dedupe:click:U1:a:1`)).toBeGreaterThan(0);
  });

  it('claims a command and reads its channel binding at once', async () => {
    const bound = `${h.prefix}:binding:CCLAIMREAD`;
    await h.redis.hset(bound, { clientId: 'acme-plumbing', clientLabel: 'Acme' });
    const first = await claimOnceReading(h.redis, h.prefix, 'cmd:T-claim-read', 5, bound);
    expect(first).toEqual({ claimed: true, hash: { clientId: 'acme-plumbing', clientLabel: 'Acme' } });
    // A redelivery loses the claim and still reads the binding.
    const again = await claimOnceReading(h.redis, h.prefix, 'cmd:T-claim-read', 5, bound);
    expect(again.claimed).toBe(false);
    expect(again.hash.clientId).toBe('acme-plumbing');
    // An unbound channel: an empty hash, and the claim taken all the same.
    const unbound = await claimOnceReading(
      h.redis,
      h.prefix,
      'cmd:T-claim-unbound',
      5,
      `${h.prefix}:binding:CNONE`,
    );
    expect(unbound).toEqual({ claimed: true, hash: {} });
    expect(await h.redis.ttl(`${h.prefix}:dedupe:cmd:T-claim-read`)).toBeGreaterThan(0);
  });
});
