/**
 * The work a command does after its ack (reads, renders, Slack calls) runs here, a bounded number at a time.
 * Slack allows 3 s to ack; the ack must never wait behind a burst of answer traffic on the same event loop, so
 * answers are started from setImmediate, a few at once, and once the queue stops keeping up the person is told
 * to try again instead of the process drowning.
 *
 * "Not keeping up" is measured in time, not in a count: a queue refuses new work once the oldest answer still
 * waiting has waited `maxWaitMs` (what a person may wait for their turn), whatever the count. A burst that
 * drains within that is answered whole, however many it holds; under real overload (more arriving than the
 * answers can finish) the wait reaches the bound and every command beyond it is refused, so no one waits much
 * longer than that for an answer. A count cap stays beside it to bound memory if answers stop finishing at all.
 */

/** How long the oldest waiting answer may have waited before new work is refused. */
export const ANSWER_MAX_WAIT_MS = 10_000;
/** At most this many answers wait in one queue (memory: each holds its command's payload). */
export const ANSWER_WAITING_CAP = 10_000;

interface Waiting {
  task: () => Promise<void>;
  first: boolean;
}

export class AnswerQueue {
  private running = 0;
  /** Waiting tasks; those offered `first` are at the front, the rest in the order they came. */
  private readonly waiting: Waiting[] = [];
  /** When each task offered in order (not `first`) began to wait, oldest first. */
  private readonly queuedAt: number[] = [];
  private readonly drained: Array<() => void> = [];

  constructor(
    private readonly concurrency = 16,
    private readonly cap = ANSWER_WAITING_CAP,
    private readonly maxWaitMs = ANSWER_MAX_WAIT_MS,
  ) {}

  /**
   * Queues a task; false when the queue is not keeping up (the caller says so to the person). `first` puts it
   * before every waiting task: a command that may open a form has 3 s before its trigger_id dies, and newest
   * first is the order in which such triggers are still alive.
   */
  offer(task: () => Promise<void>, options: { first?: boolean } = {}): boolean {
    if (this.waiting.length >= this.cap) return false;
    const now = performance.now();
    const oldest = this.queuedAt[0];
    if (oldest !== undefined && now - oldest >= this.maxWaitMs) return false;
    if (options.first) this.waiting.unshift({ task, first: true });
    else {
      this.waiting.push({ task, first: false });
      this.queuedAt.push(now);
    }
    setImmediate(() => this.pump());
    return true;
  }

  get pending(): number {
    return this.running + this.waiting.length;
  }

  /** Resolves once every queued answer has finished (graceful stop). */
  drain(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.drained.push(resolve));
  }

  private pump(): void {
    while (this.running < this.concurrency && this.waiting.length > 0) {
      const next = this.waiting.shift();
      if (!next) break;
      // Tasks offered in order start in order: this one is the oldest of them still waiting.
      if (!next.first) this.queuedAt.shift();
      this.running += 1;
      next
        .task()
        .catch(() => {
          // Tasks report their own errors to the person; nothing may escape into the event loop.
        })
        .finally(() => {
          this.running -= 1;
          if (this.pending === 0) for (const resolve of this.drained.splice(0)) resolve();
          else setImmediate(() => this.pump());
        });
    }
  }
}
