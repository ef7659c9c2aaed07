/**
 * Retry after the claims expire, and a failed enqueue. BullMQ keeps finished jobs for days
 * while the dedupe claims last 24 h: a Retry clicked later finds its job id taken and must say so instead of
 * showing "queued" for ever. A claim taken before a failed `queue.add` is given back, so the next click runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../../src/local/fake-slack/index.js';
import { bind, CHANNEL, type Harness, MEMBER, startHarness, textOf } from '../helpers/bot-harness.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness('e2e-retry-claims');
  await bind(h, 'harbor-law');
});
afterAll(async () => {
  await h?.close();
});

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `index <url>` with a status:error answer and returns the failed job's thread message with Retry. */
async function failedIndex(url: string): Promise<{ withButton: FakeMessage; jobKey: string }> {
  h.sandbox.failNext('status_error', { method: 'POST', action: 'index_url' });
  await h.runAction(`index ${url}`);
  const { thread } = await h.settled((m) => m.text.includes(url) && /failed|:x:/.test(textOf(m)));
  const withButton = thread.find((m) => textOf(m).includes('job_retry'));
  const jobKey = /"action_id":"job_retry","value":"([^"]+)"/.exec(JSON.stringify(withButton?.blocks))?.[1];
  if (!withButton || !jobKey) throw new Error('no Retry button in the thread');
  return { withButton, jobKey };
}

const queuedMessages = (url: string) =>
  h.slack.messages(CHANNEL).filter((m) => m.text.includes(url) && /queued/.test(textOf(m)));
const retriedPosts = (url: string) => h.posts('index_url').filter((p) => p.fields?.url === url);

describe('Retry', () => {
  it('after the claims expired, says the job was already retried instead of "queued" for ever', async () => {
    const url = 'https://harbor-law.example/retry-after-a-day';
    const { withButton, jobKey } = await failedIndex(url);
    await h.driver.click(withButton, { actionId: 'job_retry' }, { user: MEMBER });
    await h.settled((m) => m.text.includes(url) && /done|:white_check_mark:/.test(textOf(m)));
    expect(retriedPosts(url)).toHaveLength(2);

    // A day later: both claims (the click's and the retry job's id) have expired; the retry job is still kept.
    const redis = h.runtime.services.redis;
    expect(
      await redis.del(`${h.prefix}:dedupe:retry:${jobKey}`, `${h.prefix}:dedupe:job:retry-${jobKey}`),
    ).toBe(2);
    const before = h.slack.ephemerals(CHANNEL, MEMBER).length;
    await h.driver.click(withButton, { actionId: 'job_retry' }, { user: MEMBER });
    const told = await h.slack.waitFor(
      () =>
        h.slack
          .ephemerals(CHANNEL, MEMBER)
          .slice(before)
          .find((m) => textOf(m).includes('already retried')),
      { what: 'the "already retried" answer' },
    );
    expect(textOf(told)).toContain(`retry-${jobKey}`);
    await settle(300);
    expect(queuedMessages(url)).toEqual([]);
    expect(retriedPosts(url)).toHaveLength(2);
  });

  it('a failed queue.add gives its claims back: the next click queues the retry', async () => {
    const url = 'https://harbor-law.example/retry-after-redis-refused';
    const { withButton } = await failedIndex(url);
    // BullMQ's add starts with INCR on the queue's id key: a key of the wrong type makes every add fail.
    const redis = h.runtime.services.redis;
    const idKey = `${h.prefix}:actions:id`;
    await redis.set(idKey, 'not-a-number');
    const before = h.slack.ephemerals(CHANNEL, MEMBER).length;
    await h.driver.click(withButton, { actionId: 'job_retry' }, { user: MEMBER });
    await h.slack.waitFor(
      () =>
        h.slack
          .messages(CHANNEL)
          .find((m) => m.text.includes(url) && textOf(m).includes('could not be queued')),
      { what: 'the "could not be queued" status' },
    );
    // The clicker is told last, after the claims were given back.
    await h.slack.waitFor(() => h.slack.ephemerals(CHANNEL, MEMBER)[before], {
      what: 'the answer to the click',
    });
    await redis.del(idKey);
    await h.driver.click(withButton, { actionId: 'job_retry' }, { user: MEMBER });
    await h.slack.waitFor(() => retriedPosts(url)[1], { what: 'the retried POST' });
    await h.settled((m) => m.text.includes(url) && /done|:white_check_mark:/.test(textOf(m)));
    expect(retriedPosts(url)).toHaveLength(2);
  });
});
