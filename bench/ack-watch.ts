/**
 * Stamps the moment each sampled command's answer reaches the local Slack stand-in. Every sampled command
 * runs in a channel of its own, so its answer is the first message there: for `help` an ephemeral posted
 * through the response URL, for `keywords` a channel message from chat.postMessage (an ephemeral there is
 * an error reply). The stamp is taken synchronously inside the stand-in's change event, not by polling.
 */
import type { FakeSlack } from '../src/local/fake-slack/index.js';

/** Wall-clock milliseconds with sub-millisecond precision, comparable across processes on one machine. */
export const epochMs = (): number => performance.timeOrigin + performance.now();

export interface WatchedChannel {
  channel: string;
  kind: 'help' | 'keywords';
}

export interface Answer {
  channel: string;
  kind: WatchedChannel['kind'];
  /** epochMs() when the answer was recorded; undefined when none came. */
  at?: number;
  ok: boolean;
}

/** How the help answer starts: a response_url post that does not (nor says busy) is an error reply. */
export const HELP_TEXT = 'Gateway bot commands';

export class AnswerWatch {
  private readonly pending: Map<string, WatchedChannel['kind']>;
  private readonly answers: Answer[] = [];
  private stopped = false;
  private seen = 0;

  constructor(
    private readonly slack: FakeSlack,
    channels: WatchedChannel[],
    private readonly now: () => number,
  ) {
    this.pending = new Map(channels.map((c) => [c.channel, c.kind]));
    // waitFor re-runs its probe synchronously on every change of the stand-in's state: a change hook
    // without reaching into the stand-in's internals. The probe returns true only once we stop.
    void slack
      .waitFor(() => this.check() || this.stopped, { timeoutMs: 10 * 60_000, what: 'bench answers' })
      .catch(() => {});
  }

  /** Reads only the calls recorded since the last change; looks at ephemerals only after a response_url post. */
  private check(): boolean {
    const calls = this.slack.calls;
    if (calls.length < this.seen) this.seen = 0;
    let responded = false;
    const at = this.now();
    for (; this.seen < calls.length; this.seen++) {
      const call = calls[this.seen];
      if (call?.method === 'response_url') responded = true;
      const channel = call?.args.channel;
      if (call?.method !== 'chat.postMessage' || typeof channel !== 'string') continue;
      const kind = this.pending.get(channel);
      if (kind) this.settle(channel, kind, at, kind === 'keywords' && call.ok);
    }
    if (!responded) return false;
    for (const [channel, kind] of this.pending) {
      const ephemeral = this.slack.ephemerals(channel)[0];
      if (ephemeral) this.settle(channel, kind, at, kind === 'help' && ephemeral.text.startsWith(HELP_TEXT));
    }
    return false;
  }

  private settle(channel: string, kind: WatchedChannel['kind'], at: number, ok: boolean): void {
    this.answers.push({ channel, kind, at, ok });
    this.pending.delete(channel);
  }

  /** Waits until every watched channel has its answer (or the timeout), then returns them all. */
  async collect(timeoutMs: number): Promise<Answer[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.pending.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const missing = [...this.pending].map(([channel, kind]) => ({ channel, kind, ok: false }));
    this.stop();
    return [...this.answers, ...missing];
  }

  stop(): void {
    this.stopped = true;
  }
}

/** When each response_url and channel post reached the stand-in, for the capacity runs (bench/ack-capacity.ts). */
export interface CallStamps {
  /** By response URL id: when its first post came, and whether it said the bot is busy. */
  responses: Record<string, { at: number; busy: boolean }>;
  /** Successful chat.postMessage calls per channel, in arrival order. */
  posts: Record<string, number[]>;
}

/** Stamps every response_url and chat.postMessage call as it is recorded (the same change hook as above). */
export class CallStamper {
  private readonly stamps: CallStamps = { responses: {}, posts: {} };
  private stopped = false;
  private seen: number;

  constructor(
    private readonly slack: FakeSlack,
    private readonly busyText: string,
    private readonly now: () => number,
  ) {
    this.seen = slack.calls.length;
    void slack
      .waitFor(() => this.check() || this.stopped, { timeoutMs: 10 * 60_000, what: 'bench stamps' })
      .catch(() => {});
  }

  private check(): boolean {
    const calls = this.slack.calls;
    if (calls.length < this.seen) this.seen = 0;
    const at = this.now();
    for (; this.seen < calls.length; this.seen++) {
      const call = calls[this.seen];
      if (!call?.ok) continue;
      if (call.method === 'response_url' && call.responseUrl && !this.stamps.responses[call.responseUrl]) {
        this.stamps.responses[call.responseUrl] = { at, busy: call.args.text === this.busyText };
      } else if (call.method === 'chat.postMessage' && typeof call.args.channel === 'string') {
        const list = this.stamps.posts[call.args.channel] ?? [];
        list.push(at);
        this.stamps.posts[call.args.channel] = list;
      }
    }
    return false;
  }

  /** Stops stamping and hands over what was stamped. */
  take(): CallStamps {
    this.check();
    this.stopped = true;
    return this.stamps;
  }
}
