import { createHash } from 'node:crypto';
import type { Redis } from '../redis/connection.js';

/**
 * Rendered charts, per client, kind and day (UTC), shared by every process: the same chart asked for again that
 * day (by a person, an assistant or a digest) is sent without reading or rendering anything again. What shaped
 * it (the keywords, the period, and the version of the data it was drawn from) is part of the key, so a chart
 * of new data is a new entry; entries go with the day.
 */

/** A day and a little more: yesterday's charts are gone by tomorrow. */
const TTL_SEC = 26 * 3_600;

export interface CachedChart<M> {
  png: Buffer;
  /** What goes with the image: its summary, alt text and the numbers behind it. */
  meta: M;
}

export interface ChartKey {
  clientId: string;
  kind: string;
  /** YYYY-MM-DD (UTC). */
  day: string;
  /** Everything else the chart depends on (request and data version); hashed into the key. */
  shape: unknown;
}

export class ChartCache {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  key({ clientId, kind, day, shape }: ChartKey): string {
    const hash = createHash('sha256').update(JSON.stringify(shape)).digest('hex').slice(0, 24);
    return `${this.prefix}:chart:${encodeURIComponent(clientId)}:${kind}:${day}:${hash}`;
  }

  async get<M>(key: ChartKey): Promise<CachedChart<M> | undefined> {
    const [png, meta] = await this.redis.hmgetBuffer(this.key(key), 'png', 'meta');
    if (!png || !meta) return undefined;
    try {
      return { png, meta: JSON.parse(meta.toString('utf8')) as M };
    } catch {
      return undefined;
    }
  }

  async set<M>(key: ChartKey, chart: CachedChart<M>): Promise<void> {
    const name = this.key(key);
    await this.redis
      .multi()
      .hset(name, 'png', chart.png, 'meta', JSON.stringify(chart.meta))
      .expire(name, TTL_SEC)
      .exec();
  }
}
