/**
 * Slack's per-channel pace for chat.postMessage: about one message a second per channel, with short bursts
 * allowed; beyond it Slack answers HTTP 429 with `Retry-After`. A token bucket per channel: `burst` tokens, one
 * back every 1/`perSecond` s. Off unless the stand-in is given a pace (`channelPace`, or `simulate.pace`), so the
 * tests that post quickly are not slowed.
 */

export interface ChannelPaceOptions {
  /** Messages a second a channel takes in the long run (Slack: about 1). */
  perSecond: number;
  /** Messages a channel takes at once before the pace applies. */
  burst: number;
}

export class ChannelPace {
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(readonly options: ChannelPaceOptions) {}

  /** Takes a message for the channel: undefined when it may be posted, else how many seconds to wait. */
  take(channel: string, now = Date.now()): number | undefined {
    const { perSecond, burst } = this.options;
    const bucket = this.#buckets.get(channel) ?? { tokens: burst, at: now };
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1_000) * perSecond);
    bucket.at = now;
    this.#buckets.set(channel, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return undefined;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / perSecond));
  }
}
