/**
 * Concurrent twins: two identical requests sent together make one POST, and the second
 * requester gets the same "already exists: generate another?" question a later one gets. The claim on the
 * fingerprint is given back when the job ends, so a failed job does not block the next identical request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, bind, CHANNEL, type Harness, MEMBER, startHarness, textOf } from '../helpers/bot-harness.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness('e2e-twins');
  await bind(h, 'harbor-law');
});
afterAll(async () => {
  await h?.close();
});

const asked = (topic: string, user: string) =>
  h.slack
    .ephemerals(CHANNEL, user)
    .filter((m) => textOf(m).includes('already exists') && textOf(m).includes(topic));
const statusMessages = (topic: string) => h.slack.messages(CHANNEL).filter((m) => m.text.includes(topic));
const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('identical requests sent together', () => {
  it('two identical map commands make one POST, and the second requester is asked first', async () => {
    const topic = 'probate for twins';
    const before = h.posts('generate_topical_map').length;
    await Promise.all([
      h.gateway(`map "${topic}"`, { user: MEMBER }),
      h.gateway(`map "${topic}"`, { user: ADMIN }),
    ]);
    const prompt = await h.slack.waitFor(() => [...asked(topic, MEMBER), ...asked(topic, ADMIN)].at(0), {
      what: 'the duplicate question to one of the two',
    });
    expect(textOf(prompt)).toContain('duplicate_confirm');
    await h.settled((m) => m.text.includes(topic) && /done|:white_check_mark:/.test(textOf(m)));
    await settle(300);
    expect(h.posts('generate_topical_map').length).toBe(before + 1);
    expect(asked(topic, MEMBER).length + asked(topic, ADMIN).length).toBe(1);
    expect(statusMessages(topic)).toHaveLength(1);
  });

  it('a later identical request is asked too, from the finished job’s record', async () => {
    const topic = 'probate for twins';
    const before = h.posts('generate_topical_map').length;
    await h.gateway(`map "${topic}"`, { user: MEMBER });
    await h.slack.waitFor(() => asked(topic, MEMBER).length + asked(topic, ADMIN).length === 2, {
      what: 'a second duplicate question',
    });
    await settle(300);
    expect(h.posts('generate_topical_map').length).toBe(before);
  });

  it('a job that failed gives its claim back: the same request sent again runs', async () => {
    const topic = 'estate planning retries';
    h.sandbox.failNext('status_error', { method: 'POST', action: 'generate_topical_map' });
    await h.gateway(`map "${topic}"`, { user: MEMBER });
    await h.settled((m) => m.text.includes(topic) && /failed|:x:/.test(textOf(m)));
    const before = h.posts('generate_topical_map').length;
    // The worker gives the claim back once BullMQ has failed the job, just after the thread was told.
    const claims = `${h.prefix}:inflight:harbor-law:generate_topical_map:*`;
    for (
      const deadline = Date.now() + 10_000;
      Date.now() < deadline && (await h.runtime.services.redis.keys(claims)).length > 0;
    )
      await settle(20);
    expect(await h.runtime.services.redis.keys(claims)).toEqual([]);
    await h.gateway(`map "${topic}"`, { user: MEMBER });
    await h.slack.waitFor(() => h.posts('generate_topical_map')[before], { what: 'the second POST' });
    expect(asked(topic, MEMBER)).toEqual([]);
  });
});
