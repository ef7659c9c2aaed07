import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allText, CHANNEL, type JobsHarness, startJobsHarness } from '../fixtures/jobs-harness.js';

/**
 * A job an earlier version queued named its Slack channel at the top level (`channel`), not a reply target:
 * a worker of this version still runs it and reports in that channel's thread (a deploy with jobs in the queue).
 */

let h: JobsHarness;

beforeAll(async () => {
  h = await startJobsHarness('jobs-legacy-data');
});
afterAll(async () => {
  await h?.close();
});

describe('job data from an earlier version', () => {
  it('runs a job that names its channel instead of a reply target and replies in that channel’s thread', async () => {
    const posted = await h.web.chat.postMessage({ channel: CHANNEL, text: 'queued: audit' });
    const { replyTo: _replyTo, ...current } = h.jobData(
      'seo_audit',
      { url: 'https://acmeplumbing.example/legacy' },
      { statusTs: String(posted.ts) },
    );
    const legacy = { ...current, channel: CHANNEL };
    await h.queue.queue.add('action', legacy as never, { jobId: legacy.jobKey });
    const { state, job } = await h.settled(legacy.jobKey);
    expect(state).toBe('completed');
    expect(job.data.replyTo).toEqual({ kind: 'slack', channel: CHANNEL });
    const thread = h.slack.thread(CHANNEL, String(posted.ts));
    expect(thread).toHaveLength(1);
    expect(allText(thread[0])).toContain('acmeplumbing.example/legacy');
  });
});
