/**
 * A small in-process cache for answers that may be a few minutes old (who someone is, who is in a group):
 * entries expire after `ttlMs`, the oldest go first past `maxEntries`, concurrent lookups of one key share
 * one call, and a failed lookup is not remembered.
 */
export class TtlCache<V> {
  readonly #entries = new Map<string, { value: V; expiresAt: number }>();
  readonly #loading = new Map<string, Promise<V>>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
  ) {}

  async get(key: string, load: () => Promise<V>): Promise<V> {
    const hit = this.#entries.get(key);
    if (hit && hit.expiresAt > Date.now()) return hit.value;
    const pending = this.#loading.get(key);
    if (pending) return pending;
    const loading = load()
      .then((value) => {
        this.#entries.delete(key);
        this.#entries.set(key, { value, expiresAt: Date.now() + this.ttlMs });
        // A Map iterates in insertion order, so the first key is the oldest answer.
        while (this.#entries.size > this.maxEntries) {
          const oldest = this.#entries.keys().next().value;
          if (oldest === undefined) break;
          this.#entries.delete(oldest);
        }
        return value;
      })
      .finally(() => this.#loading.delete(key));
    this.#loading.set(key, loading);
    return loading;
  }

  /** Forgets an answer (the next get loads it again). */
  delete(key: string): void {
    this.#entries.delete(key);
  }

  get size(): number {
    return this.#entries.size;
  }
}
