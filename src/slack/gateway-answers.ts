import { ANSWER_MAX_WAIT_MS, ANSWER_WAITING_CAP } from './answer-queue.js';

/**
 * Answers that read the gateway run here, apart from the answers that need Redis and Slack alone (AnswerQueue):
 * a gateway that drips holds only these slots, never `help` or `jobs`. Within them one key (a command word, so
 * one resource) holds at most `perKey` slots at once, so one slow resource leaves the other slots to the rest.
 * Each read ends at its deadline (GATEWAY_READ_TIMEOUT), so a slot is never held for ever.
 *
 * Refusal is per key and in time, never in a count alone: no answer waits more than `maxWaitMs` for its turn.
 * A key whose oldest waiting answer has waited that long takes no more work (a slow resource is refused alone;
 * the other keys are still answered), and an answer that has waited that long without starting is refused then
 * (the person is told, as at the door). So every command gets its answer or a refusal within that bound plus
 * its own reads' deadlines, and a burst of quick answers, which drains within seconds even while acks keep the
 * event loop busy, is taken whole. A count cap over all keys bounds memory.
 *
 * The wait is measured, not foreseen: a rule that predicted it from how long recent answers took refused
 * commands after a Redis failover, when answers stuck during the failover made the quick ones after it look
 * slow.
 */

interface Waiting {
  key: string;
  task: () => Promise<void>;
  first: boolean;
  /** When it began to wait. */
  since: number;
  /** Tells the person the bot is too busy (it waited `maxWaitMs` and never started). */
  refuse?: () => void;
}

/** How often waiting answers are checked for one that has waited too long. */
const SHED_EVERY_MS = 250;

export class GatewayAnswers {
  #running = 0;
  readonly #byKey = new Map<string, number>();
  readonly #waiting: Waiting[] = [];
  /** Per key, when each of its tasks offered in order (not `first`) began to wait, oldest first. */
  readonly #queuedAt = new Map<string, number[]>();
  /** How many tasks of each key wait (first or not). */
  readonly #waitingOf = new Map<string, number>();
  readonly #drained: Array<() => void> = [];
  #shedTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly concurrency = 16,
    private readonly perKey = 4,
    private readonly cap = ANSWER_WAITING_CAP,
    private readonly maxWaitMs = ANSWER_MAX_WAIT_MS,
  ) {}

  /**
   * Queues a task under its key; false when that key is not keeping up or the queue is full (the caller says so
   * to the person). `first`: ahead of every waiting task (a command that may open a form, whose trigger_id dies
   * after 3 s).
   */
  offer(
    key: string,
    task: () => Promise<void>,
    options: { first?: boolean; refuse?: () => void } = {},
  ): boolean {
    if (this.#waiting.length >= this.cap) return false;
    const now = performance.now();
    const times = this.#queuedAt.get(key);
    const oldest = times?.[0];
    if (oldest !== undefined && now - oldest >= this.maxWaitMs) return false;
    this.#waitingOf.set(key, (this.#waitingOf.get(key) ?? 0) + 1);
    const waiting: Waiting = { key, task, first: options.first === true, since: now, refuse: options.refuse };
    if (waiting.first) this.#waiting.unshift(waiting);
    else {
      this.#waiting.push(waiting);
      if (times) times.push(now);
      else this.#queuedAt.set(key, [now]);
    }
    setImmediate(() => this.#pump());
    this.#shedTimer ??= setInterval(() => this.#shed(), SHED_EVERY_MS).unref();
    return true;
  }

  /**
   * Refuses every answer that has waited `maxWaitMs` without starting, so no one waits for ever behind answers
   * that turned out slower than the admission foresaw (a resource that starts to drip after a burst was taken):
   * the person is told the bot is busy, as a refusal at the door would have.
   */
  #shed(): void {
    const now = performance.now();
    const kept: Waiting[] = [];
    const shed: Waiting[] = [];
    for (const w of this.#waiting) (now - w.since >= this.maxWaitMs ? shed : kept).push(w);
    if (shed.length > 0) {
      this.#waiting.splice(0, this.#waiting.length, ...kept);
      for (const w of shed) {
        this.#leaveWaiting(w);
        w.refuse?.();
      }
      if (this.pending === 0) for (const resolve of this.#drained.splice(0)) resolve();
    }
    if (this.#waiting.length === 0) {
      clearInterval(this.#shedTimer);
      this.#shedTimer = undefined;
    }
  }

  /** Forgets a task that leaves the waiting list (to start, or refused). */
  #leaveWaiting(w: Waiting): void {
    const left = (this.#waitingOf.get(w.key) ?? 1) - 1;
    if (left > 0) this.#waitingOf.set(w.key, left);
    else this.#waitingOf.delete(w.key);
    // A key's tasks offered in order leave in order: this one is the oldest of them still waiting.
    if (!w.first) {
      const times = this.#queuedAt.get(w.key);
      times?.shift();
      if (times?.length === 0) this.#queuedAt.delete(w.key);
    }
  }

  get pending(): number {
    return this.#running + this.#waiting.length;
  }

  /** Resolves once every queued answer has finished (graceful stop). */
  drain(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.#drained.push(resolve));
  }

  /** A key can start a task: one of its tasks waits and it holds fewer than its share of the slots. */
  #startable(key: string): boolean {
    return (this.#waitingOf.get(key) ?? 0) > 0 && (this.#byKey.get(key) ?? 0) < this.perKey;
  }

  #pump(): void {
    // The scan ends once no waiting key can start: a long backlog of one slow key is not walked on every turn.
    let startable = 0;
    for (const key of this.#waitingOf.keys()) if (this.#startable(key)) startable += 1;
    for (let i = 0; i < this.#waiting.length && this.#running < this.concurrency && startable > 0; ) {
      const next = this.#waiting[i];
      if (!next || (this.#byKey.get(next.key) ?? 0) >= this.perKey) {
        i += 1;
        continue;
      }
      this.#waiting.splice(i, 1);
      this.#leaveWaiting(next);
      this.#start(next.key, next.task);
      if (!this.#startable(next.key)) startable -= 1;
    }
  }

  #start(key: string, task: () => Promise<void>): void {
    this.#running += 1;
    this.#byKey.set(key, (this.#byKey.get(key) ?? 0) + 1);
    task()
      .catch(() => {
        // Tasks report their own errors to the person; nothing may escape into the event loop.
      })
      .finally(() => {
        this.#running -= 1;
        const left = (this.#byKey.get(key) ?? 1) - 1;
        if (left > 0) this.#byKey.set(key, left);
        else this.#byKey.delete(key);
        if (this.pending === 0) for (const resolve of this.#drained.splice(0)) resolve();
        else setImmediate(() => this.#pump());
      });
  }
}
