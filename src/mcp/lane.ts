/**
 * The assistant requests of one process, in a lane of their own behind Slack's. At most `inFlight` are held
 * (running or waiting); one more is refused at the door (503 with Retry-After) before anything is read. At
 * most `running` run at once, each started from setImmediate, so the Slack requests that arrived meanwhile
 * are parsed and acked first; and none starts while a Slack answer is in progress in this process (`slackBusy`). One
 * that waits `maxWaitMs` without starting is refused then (503), so a Slack flood never leaves an assistant
 * waiting for ever.
 */

export interface LaneLimits {
  inFlight: number;
  running: number;
  maxWaitMs: number;
}

/** How often a waiting request looks again while Slack's answers are busy. */
const SLACK_BUSY_RECHECK_MS = 5;

interface Waiting {
  since: number;
  start: (started: boolean) => void;
}

export class AssistantLane {
  #held = 0;
  #running = 0;
  readonly #waiting: Waiting[] = [];
  #timer: NodeJS.Timeout | undefined;

  constructor(
    readonly limits: LaneLimits,
    private readonly slackBusy: () => boolean = () => false,
  ) {}

  get held(): number {
    return this.#held;
  }

  /**
   * Runs `work` in the lane: 'full' when the lane holds `inFlight` requests already, 'waited' when it waited
   * `maxWaitMs` without starting (the caller answers 503 either way), else what `work` returned.
   */
  async run<T>(
    work: () => Promise<T>,
  ): Promise<{ ran: true; value: T } | { ran: false; why: 'full' | 'waited' }> {
    if (this.#held >= this.limits.inFlight) return { ran: false, why: 'full' };
    this.#held += 1;
    try {
      const started = await new Promise<boolean>((start) => {
        this.#waiting.push({ since: performance.now(), start });
        setImmediate(() => this.#pump());
      });
      if (!started) return { ran: false, why: 'waited' };
      try {
        return { ran: true, value: await work() };
      } finally {
        this.#running -= 1;
        setImmediate(() => this.#pump());
      }
    } finally {
      this.#held -= 1;
    }
  }

  #pump(): void {
    const tooOld = performance.now() - this.limits.maxWaitMs;
    while (this.#waiting[0] && this.#waiting[0].since <= tooOld) this.#waiting.shift()?.start(false);
    if (this.#waiting.length === 0) return;
    if (this.slackBusy()) {
      this.#timer ??= setTimeout(() => {
        this.#timer = undefined;
        this.#pump();
      }, SLACK_BUSY_RECHECK_MS);
      return;
    }
    while (this.#running < this.limits.running && this.#waiting.length > 0) {
      this.#running += 1;
      this.#waiting.shift()?.start(true);
    }
  }
}
