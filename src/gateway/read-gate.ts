/**
 * A cap on gateway reads in flight. Every page read takes a slot first and gives it back when its answer is in
 * (retries included), so however many digests and commands read at once, the gateway never sees more reads from
 * this process than the cap; a fleet-wide gate (store/fleet-read-slots.ts) is chained behind it.
 */

export interface ReadGate {
  /** Waits for a slot; the function returned gives it back (calling it twice gives back one slot). */
  acquire(signal?: AbortSignal): Promise<() => void>;
}

/** Slots of this process, handed out first come, first served. */
export class ReadSlots implements ReadGate {
  #inFlight = 0;
  #max = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError('ReadSlots: limit must be 1 or more');
  }

  /** Reads in flight now, and the most there ever were. */
  get inFlight(): number {
    return this.#inFlight;
  }

  get maxInFlight(): number {
    return this.#max;
  }

  async acquire(signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    if (this.#inFlight >= this.limit) {
      await new Promise<void>((resolve, reject) => {
        const turn = () => {
          signal?.removeEventListener('abort', abort);
          resolve();
        };
        const abort = () => {
          const i = this.#waiting.indexOf(turn);
          if (i >= 0) this.#waiting.splice(i, 1);
          reject(signal?.reason);
        };
        signal?.addEventListener('abort', abort, { once: true });
        this.#waiting.push(turn);
      });
    } else this.#inFlight++;
    this.#max = Math.max(this.#max, this.#inFlight);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const next = this.#waiting.shift();
      // The slot passes straight to the next in line: the count stays as it is.
      if (next) next();
      else this.#inFlight--;
    };
  }
}

/** This process's slot first, then the fleet's: a read waiting for the fleet holds no more than its own slot. */
export function chainGates(first: ReadGate, then: ReadGate | undefined): ReadGate {
  if (!then) return first;
  return {
    async acquire(signal) {
      const own = await first.acquire(signal);
      try {
        const fleet = await then.acquire(signal);
        return () => {
          fleet();
          own();
        };
      } catch (error) {
        own();
        throw error;
      }
    },
  };
}
