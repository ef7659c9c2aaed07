import { createHash } from 'node:crypto';
import type { Redis } from '../redis/connection.js';
import { defineScript, runScript } from '../redis/scripts.js';

/**
 * Rendered charts, per client, kind and day (UTC), shared by every process: the same chart asked for again that
 * day (by a person, an assistant or a digest) is sent without reading or rendering anything again. What shaped
 * it (the keywords drawn, the period, and the version of the data it was drawn from) is part of the key, so a
 * chart of new data is a new entry; entries go with the day.
 *
 * The cache has a size: every entry's bytes are counted in one index, and a write that takes the total past the
 * cap removes the entries that expire first (the oldest) until it fits. Without it, a caller asking for ever new
 * shapes (a period a day longer each time) would add a PNG per call for a day.
 */

/** A day and a little more: yesterday's charts are gone by tomorrow. */
const TTL_SEC = 26 * 3_600;
/** The cap when a caller gives none (CHART_CACHE_MB's default). */
const DEFAULT_CAP_BYTES = 256 * 1_048_576;

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
  /** Everything else the chart depends on (what was drawn, and the data version); hashed into the key. */
  shape: unknown;
}

/**
 * Counts a new entry in the index (a sorted set by expiry, a hash of sizes, the total), drops what has expired,
 * then removes the entries that expire first while the total is over the cap. The entries share the prefix's
 * hash tag with the index, so the keys removed here are in the same slot on a Redis Cluster.
 * KEYS: index, sizes, total, entry. ARGV: bytes, expires at (ms), now (ms), cap (bytes), TTL (ms).
 */
const ADMIT = defineScript(
  'gwChartCacheAdmit',
  4,
  `
local total = tonumber(redis.call('GET', KEYS[3]) or '0')
local before = redis.call('HGET', KEYS[2], KEYS[4])
if before then total = total - tonumber(before) end
local gone = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
for _, name in ipairs(gone) do
  total = total - tonumber(redis.call('HGET', KEYS[2], name) or '0')
  redis.call('HDEL', KEYS[2], name)
end
if #gone > 0 then redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3]) end
redis.call('ZADD', KEYS[1], ARGV[2], KEYS[4])
redis.call('HSET', KEYS[2], KEYS[4], ARGV[1])
total = total + tonumber(ARGV[1])
local removed = 0
while total > tonumber(ARGV[4]) do
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0)[1]
  if not oldest then break end
  total = total - tonumber(redis.call('HGET', KEYS[2], oldest) or '0')
  redis.call('HDEL', KEYS[2], oldest)
  redis.call('ZREM', KEYS[1], oldest)
  redis.call('DEL', oldest)
  removed = removed + 1
end
if total < 0 then total = 0 end
redis.call('SET', KEYS[3], total, 'PX', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
return removed
`,
);

export class ChartCache {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly capBytes = DEFAULT_CAP_BYTES,
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

  async set<M>(key: ChartKey, chart: CachedChart<M>, now = Date.now()): Promise<void> {
    const name = this.key(key);
    const meta = JSON.stringify(chart.meta);
    await this.redis.multi().hset(name, 'png', chart.png, 'meta', meta).expire(name, TTL_SEC).exec();
    const bytes = chart.png.length + Buffer.byteLength(meta);
    await runScript(
      this.redis,
      ADMIT,
      [`${this.prefix}:chart-index`, `${this.prefix}:chart-sizes`, `${this.prefix}:chart-bytes`, name],
      [bytes, now + TTL_SEC * 1_000, now, this.capBytes, TTL_SEC * 1_000],
    );
  }

  /**
   * Counts a chart about to be drawn for `user` (a cached one costs nothing): false when they have drawn
   * `rate.max` in this window already, with the seconds until the next window.
   */
  async takeRender(
    user: string,
    rate: { max: number; windowMs: number },
    now = Date.now(),
  ): Promise<{ ok: true } | { ok: false; retryAfterSec: number }> {
    const window = Math.floor(now / rate.windowMs);
    const name = `${this.prefix}:chart-renders:${user}:${window}`;
    const replies = (await this.redis.multi().incr(name).pexpire(name, rate.windowMs).exec()) as [
      unknown,
      number,
    ][];
    if ((replies[0]?.[1] ?? 0) <= rate.max) return { ok: true };
    return { ok: false, retryAfterSec: Math.max(1, Math.ceil(((window + 1) * rate.windowMs - now) / 1_000)) };
  }
}
