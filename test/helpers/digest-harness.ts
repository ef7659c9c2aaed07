import type { FakeMessage } from '../../src/local/fake-slack/index.js';
import { type Harness, startHarness, textOf } from './bot-harness.js';

/**
 * The digest e2e tests' bot and what they read back: the whole bot (bot-harness) with fast digest retries, its
 * scheduler polling every `pollMs`, and the digests the stand-in received.
 */
export function startDigestHarness(
  name: string,
  pollMs: number,
  // These tests ask for `digest now` many times as one person: no cooldown unless a test is about it.
  env: Record<string, string> = { DIGEST_NOW_COOLDOWN: '1ms' },
): Promise<Harness> {
  return startHarness(name, env, {
    digests: { jobOptions: { backoff: { type: 'fixed', delay: 50 } }, pollMs },
    gatewayRetry: { attempts: 2, baseDelayMs: 5, maxDelayMs: 10 },
  });
}

/** Reads of one harness (`h()`: the file's harness, started in its beforeAll). */
export function digestReads(h: () => Harness) {
  const digestsIn = (channel: string) =>
    h()
      .slack.messages(channel)
      .filter((m) => (m.metadata as { event_type?: string })?.event_type === 'gateway_digest');

  /** Waits for the n-th digest message in a channel (and for its thread when it has details). */
  async function nthDigest(channel: string, n: number, threadReplies = 0) {
    const { slack } = h();
    const summary = await slack.waitFor(() => digestsIn(channel)[n - 1], {
      what: `digest #${n} in ${channel}`,
      timeoutMs: 20_000,
    });
    const thread: FakeMessage[] = threadReplies
      ? await slack.waitFor(
          () => {
            const replies = slack.thread(channel, summary.ts);
            return replies.length >= threadReplies ? replies : undefined;
          },
          { what: 'the digest thread', timeoutMs: 20_000 },
        )
      : [];
    return { summary, thread, all: [summary, ...thread].map(textOf).join('\n') };
  }

  async function ephemeralTo(user: string, channel: string, match: RegExp): Promise<string> {
    const m = await h().ephemeral((e) => match.test(textOf(e)), { user, channel });
    return textOf(m);
  }

  return { digestsIn, nthDigest, ephemeralTo };
}
