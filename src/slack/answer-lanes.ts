/**
 * The work a command does after its ack (reads, renders, Slack calls) runs here, a bounded number at a time.
 * Slack allows 3 s to ack; the ack must never wait behind a burst of answer traffic on the same event loop, so
 * answers are started from setImmediate, a few at once, and once they stop keeping up the person is told to try
 * again instead of the process drowning.
 *
 * The bot keeps two sets of lanes (runtime.ts): one for the answers that need Redis and Slack alone (`help`,
 * `jobs`, …: one key holding every slot), and one for those that read the gateway, where a gateway that drips
 * holds only these slots. There one key (a command word, so one resource) holds at most `perKey` slots at once,
 * so one slow resource leaves the other slots to the rest. Each read ends at its deadline
 * (GATEWAY_READ_TIMEOUT), so a slot is never held for ever.
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
  task: () => Promise<void>;
  /** When it began to wait. */
  since: number;
  /** Tells the person the bot is too busy (it waited `maxWaitMs` and never started). */
  refuse?: (() => void) | undefined;
}

/** One key's waiting tasks: those offered `first`, newest first, then the rest in the order they came. */
interface KeyQueue {
  key: string;
  first: Waiting[];
  ordered: Waiting[];
  running: number;
}

/** How long the oldest waiting answer may have waited before new work is refused. */
const ANSWER_MAX_WAIT_MS = 10_000;
/** At most this many answers wait in one set of lanes (memory: each holds its command's payload). */
const ANSWER_WAITING_CAP = 10_000;

/** How often waiting answers are checked for one that has waited too long. */
const SHED_EVERY_MS = 250;

export class AnswerLanes {
  #running = 0;
  #waiting = 0;
  readonly #keys = new Map<string, KeyQueue>();
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
   * after 3 s). `refuse` tells the person, should the task wait `maxWaitMs` without starting.
   */
  offer(
    key: string,
    task: () => Promise<void>,
    options: { first?: boolean; refuse?: () => void } = {},
  ): boolean {
    if (this.#waiting >= this.cap) return false;
    const now = performance.now();
    let queue = this.#keys.get(key);
    const oldest = queue?.ordered[0];
    if (oldest && now - oldest.since >= this.maxWaitMs) return false;
    if (!queue) {
      queue = { key, first: [], ordered: [], running: 0 };
      this.#keys.set(key, queue);
    }
    const waiting: Waiting = { task, since: now, refuse: options.refuse };
    if (options.first) queue.first.unshift(waiting);
    else queue.ordered.push(waiting);
    this.#waiting += 1;
    setImmediate(() => this.#pump());
    this.#shedTimer ??= setInterval(() => this.#shed(), SHED_EVERY_MS).unref();
    return true;
  }

  /** Answers waiting for a slot (not yet started). */
  get waiting(): number {
    return this.#waiting;
  }

  get pending(): number {
    return this.#running + this.#waiting;
  }

  /** Resolves once every queued answer has finished (graceful stop). */
  drain(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.#drained.push(resolve));
  }

  /**
   * Refuses every answer that has waited `maxWaitMs` without starting, so no one waits for ever behind answers
   * that turned out slower than expected (a resource that starts to drip after a burst was taken): the person
   * is told the bot is busy, as a refusal at the door would have.
   */
  #shed(): void {
    const before = performance.now() - this.maxWaitMs;
    const shed: Waiting[] = [];
    const young = (w: Waiting) => {
      if (w.since > before) return true;
      shed.push(w);
      return false;
    };
    for (const queue of this.#keys.values()) {
      queue.first = queue.first.filter(young);
      // In the order they came: the ones that waited too long are a prefix.
      let cut = 0;
      while (cut < queue.ordered.length && !young(queue.ordered[cut] as Waiting)) cut += 1;
      if (cut > 0) queue.ordered.splice(0, cut);
      this.#forgetIfIdle(queue);
    }
    this.#waiting -= shed.length;
    for (const w of shed) w.refuse?.();
    if (shed.length > 0 && this.pending === 0) for (const resolve of this.#drained.splice(0)) resolve();
    if (this.#waiting === 0) {
      clearInterval(this.#shedTimer);
      this.#shedTimer = undefined;
    }
  }

  #forgetIfIdle(queue: KeyQueue): void {
    if (queue.running === 0 && queue.first.length === 0 && queue.ordered.length === 0)
      this.#keys.delete(queue.key);
  }

  /**
   * The key whose task starts next: one with a task waiting and fewer than its share of the slots; of those,
   * one with a form waiting, then the one holding the fewest slots, then the one whose next task came first.
   */
  #next(): KeyQueue | undefined {
    let best: KeyQueue | undefined;
    for (const queue of this.#keys.values()) {
      if (queue.running >= this.perKey || (queue.first.length === 0 && queue.ordered.length === 0)) continue;
      if (!best || this.#before(queue, best)) best = queue;
    }
    return best;
  }

  /** Whether `a`'s next task starts before `b`'s (both have one waiting). */
  #before(a: KeyQueue, b: KeyQueue): boolean {
    const aForm = a.first.length > 0;
    if (aForm !== b.first.length > 0) return aForm;
    if (a.running !== b.running) return a.running < b.running;
    const aHead = a.first[0] ?? a.ordered[0];
    const bHead = b.first[0] ?? b.ordered[0];
    return (aHead?.since ?? 0) < (bHead?.since ?? 0);
  }

  #pump(): void {
    while (this.#running < this.concurrency && this.#waiting > 0) {
      const queue = this.#next();
      const next = queue ? (queue.first.shift() ?? queue.ordered.shift()) : undefined;
      if (!queue || !next) return;
      this.#waiting -= 1;
      this.#start(queue, next.task);
    }
  }

  #start(queue: KeyQueue, task: () => Promise<void>): void {
    this.#running += 1;
    queue.running += 1;
    task()
      .catch(() => {
        // Tasks report their own errors to the person; nothing may escape into the event loop.
      })
      .finally(() => {
        this.#running -= 1;
        queue.running -= 1;
        this.#forgetIfIdle(queue);
        if (this.pending === 0) for (const resolve of this.#drained.splice(0)) resolve();
        else setImmediate(() => this.#pump());
      });
  }
}
