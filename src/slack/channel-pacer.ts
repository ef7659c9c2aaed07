/**
 * Slack takes about one message a second per channel (`chat.postMessage`); beyond it, 429 with Retry-After. A
 * worker posting a digest and its thread, or several digests into one channel, keeps that pace itself: each new
 * message in a channel waits for its turn, one interval after the channel's last; a 429's Retry-After pushes the
 * channel's next turn back. Per process: two processes posting into one channel at once may still meet a 429,
 * which the poster waits out (slack-poster.ts).
 */
export class ChannelPacer {
  readonly #next = new Map<string, number>();

  constructor(readonly intervalMs: number) {}

  /** Waits for the channel's turn and books the one after it. */
  async turn(channel: string): Promise<void> {
    if (this.intervalMs <= 0) return;
    const now = Date.now();
    const at = Math.max(now, this.#next.get(channel) ?? 0);
    this.#next.set(channel, at + this.intervalMs);
    if (this.#next.size > 1_000) this.#forgetPast(now);
    if (at > now) await new Promise((resolve) => setTimeout(resolve, at - now));
  }

  /**
   * A message went out now (perhaps later than its turn: the Web API client waits out a 429 and retries on its
   * own): the channel's next turn is one interval after it, not after the turn it was booked at.
   */
  sent(channel: string): void {
    if (this.intervalMs <= 0) return;
    this.#next.set(channel, Math.max(this.#next.get(channel) ?? 0, Date.now() + this.intervalMs));
  }

  /** Slack said to wait: nothing more for this channel until then. */
  pushBack(channel: string, waitMs: number): void {
    const until = Date.now() + waitMs;
    this.#next.set(channel, Math.max(this.#next.get(channel) ?? 0, until));
  }

  #forgetPast(now: number): void {
    for (const [channel, at] of this.#next) if (at < now) this.#next.delete(channel);
  }
}
