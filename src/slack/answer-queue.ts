/**
 * The work a command does after its ack (reads, renders, Slack calls) runs here, a bounded number at a time.
 * Slack allows 3 s to ack; the ack must never wait behind a burst of answer traffic on the same event loop, so
 * answers are started from setImmediate, a few at once, and beyond a cap the person is told to try again
 * instead of the process drowning.
 */
export class AnswerQueue {
  private running = 0;
  private readonly waiting: Array<() => Promise<void>> = [];
  private readonly drained: Array<() => void> = [];

  constructor(
    private readonly concurrency = 16,
    private readonly cap = 1_000,
  ) {}

  /**
   * Queues a task; false when the queue is full (the caller says so to the person). `first` puts it before
   * every waiting task: a command that may open a form has 3 s before its trigger_id dies, and newest first is
   * the order in which such triggers are still alive.
   */
  offer(task: () => Promise<void>, options: { first?: boolean } = {}): boolean {
    if (this.waiting.length >= this.cap) return false;
    if (options.first) this.waiting.unshift(task);
    else this.waiting.push(task);
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
      const task = this.waiting.shift();
      if (!task) break;
      this.running += 1;
      task()
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
