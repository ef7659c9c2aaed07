import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActionQueue } from '../../src/jobs/queue.js';
import { bullKeys, faultStreak, pauseAllWorkers } from '../../src/jobs/rate-limit.js';
import { showWait } from '../../src/jobs/show-wait.js';
import { silentLogger } from '../../src/logger.js';
import { createSlackPoster } from '../../src/slack/slack-poster.js';
import { CHANNEL, type JobsHarness, startJobsHarness } from '../fixtures/jobs-harness.js';

/**
 * When gateway faults persist and the whole queue slows, the messages of the jobs already waiting are updated
 * to say so and about how long (real Redis, the Slack stand-in, no workers: nothing starts meanwhile).
 */

let h: JobsHarness;
let queue: ActionQueue;

beforeAll(async () => {
  h = await startJobsHarness('jobs-show-wait', { workers: false });
  queue = new ActionQueue({ connection: h.redis, prefix: h.prefix, rate: { max: 10, windowMs: 60_000 } });
});
afterAll(async () => {
  await queue?.close();
  await h?.close();
});

describe('showWait', () => {
  it('updates the waiting jobs’ messages once the queue is slowed, keeping their Cancel buttons', async () => {
    const outbound = createSlackPoster(h.web);
    const jobs = ['one', 'two'].map((p) =>
      h.jobData('seo_audit', { url: `https://acmeplumbing.example/${p}` }),
    );
    for (const job of jobs)
      await queue.enqueue(job, () => outbound.post(job.replyTo, { text: 'queued', blocks: [] }));

    const faults = faultStreak(h.redis, h.prefix, { baseMs: 8_000, threshold: 2 });
    const limiter = bullKeys(h.prefix, 'actions').limiter;
    const pause = (ms: number) => pauseAllWorkers(h.redis, limiter, ms);
    expect((await faults.fault(pause)).pausedMs).toBe(0);
    const { pausedMs } = await faults.fault(pause);
    expect(pausedMs).toBe(8_000);

    await showWait(
      { queue, outbound, catalogue: () => h.catalogue, logger: silentLogger() },
      { holdsForMs: pausedMs },
    );
    const texts = h.slack.messages(CHANNEL).map((m) => m.text);
    expect(texts).toHaveLength(2);
    expect(texts[0]).toMatch(
      /^SEO audit of <https:\/\/acmeplumbing\.example\/one\|[^>]+> .*— queued: the gateway keeps failing, so the queue is slowed, about 8 s$/,
    );
    expect(texts[1]).toMatch(
      /\/two\|.*— queued: the gateway keeps failing, so the queue is slowed, 1 ahead, about 8 s$/,
    );
    expect(JSON.stringify(h.slack.messages(CHANNEL)[1]?.blocks)).toContain(`"value":"${jobs[1]?.jobKey}"`);

    // A good answer ends the streak: new waits no longer say the queue is slowed.
    await faults.clear();
    expect((await queue.estimateWait(0)).slowed).toBeUndefined();
    // A 429 slows everyone at once, and the waits say the gateway asked for it.
    await faults.rateLimited(3_000);
    expect((await queue.estimateWait(0)).slowed).toBe('rate-limited');
  });
});
