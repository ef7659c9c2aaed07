import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../../src/local/fake-slack/index.js';
import { ADMIN, bind, type Harness, MEMBER, startHarness, textOf } from '../helpers/bot-harness.js';

/**
 * What a person reads from the digest commands and digests (the UX review's findings), end to end through the
 * signed driver, the real workers and the Slack stand-in. The scheduler role polls rarely here, so a test can
 * look at `digest status` before it has re-registered a changed schedule.
 */

let h: Harness;

beforeAll(async () => {
  h = await startHarness(
    'e2e-digest-ux',
    {},
    {
      digests: { jobOptions: { backoff: { type: 'fixed', delay: 50 } }, pollMs: 600_000 },
      gatewayRetry: { attempts: 2, baseDelayMs: 5, maxDelayMs: 10 },
    },
  );
});
afterAll(async () => {
  await h?.close();
});

const digestsIn = (channel: string) =>
  h.slack
    .messages(channel)
    .filter((m) => (m.metadata as { event_type?: string })?.event_type === 'gateway_digest');

async function nthDigest(channel: string, n: number, threadReplies = 0) {
  const summary = await h.slack.waitFor(() => digestsIn(channel)[n - 1], {
    what: `digest #${n} in ${channel}`,
    timeoutMs: 20_000,
  });
  const thread: FakeMessage[] = threadReplies
    ? await h.slack.waitFor(
        () => {
          const replies = h.slack.thread(channel, summary.ts);
          return replies.length >= threadReplies ? replies : undefined;
        },
        { what: 'the digest thread', timeoutMs: 20_000 },
      )
    : [];
  return { summary, thread };
}

async function ephemeralTo(user: string, channel: string, match: RegExp): Promise<string> {
  const m = await h.ephemeral((e) => match.test(textOf(e)), { user, channel });
  return textOf(m);
}

describe('digest now without a kind', () => {
  it('asks which digest with a `digest now` example, not a subscription', async () => {
    const channel = 'CUXNOW';
    await bind(h, 'bright-dental', channel);
    await h.gateway('digest now', { user: MEMBER, channel });
    const reply = await ephemeralTo(MEMBER, channel, /Which digest\?/);
    expect(reply).toContain('For example: `/gateway digest now rankings`');
    expect(reply).not.toContain('and when');
    expect(reply).not.toContain('weekly mon');
  });
});
