import type { Redis } from '../redis/connection.js';
import { HomeMarks } from '../store/index.js';
import type { SlackMessage } from '../views/blocks.js';
import type { DigestChart } from './digest-chart.js';
import type { DigestFilters, DigestKind } from './filters.js';
import type { Schedule } from './schedule.js';

/**
 * Digest state in Redis: subscriptions, each (channel, kind)'s high-water mark, the claims of
 * scheduled periods and a digest being posted. Every key lives under the prefix, so a `{hash-tag}` prefix keeps
 * them in one Redis Cluster slot (the mark's swap is one MULTI).
 */

export interface SubscriptionSettings {
  channel: string;
  kind: DigestKind;
  schedule: Schedule;
  /** The time zone of the schedule (DIGEST_TZ unless the subscription named one). */
  tz: string;
  filters: DigestFilters;
  createdBy: string;
  createdAt: string;
}

export interface Subscription extends SubscriptionSettings {
  /** Set when the digest stopped on its own (the channel was unbound, archived or left). */
  stopped?: { reason: string; at: string };
  /** The last run that failed for good, and whether the channel has been told. */
  failure?: { code: string; at: string; told: boolean };
  lastRunAt?: string;
  lastPostedAt?: string;
}

export interface MarkMeta {
  clientId: string;
  /** When the mark last advanced (the "since" of the next digest). */
  since: string;
  baselineAt: string;
  /** Rows the last run read: how large the client is (spread.ts takes small ones first). */
  rows?: number;
}

/** A digest whose mark has advanced and whose messages are (being) posted: a retry resumes it. */
export interface PendingDigest {
  /** The run it belongs to (a period, or `now:<job id>`). */
  run: string;
  summary: SlackMessage;
  details: SlackMessage[];
  summaryTs?: string;
  repliesPosted: number;
  /** A chart for the thread, after the details (digest-chart.ts), and whether it went out (or was given up). */
  chart?: DigestChart;
  chartPosted?: boolean;
}

const WEEK_SEC = 7 * 86_400;
const CHUNK = 1_000;

const subscriptionId = (channel: string, kind: DigestKind) => `${channel}:${kind}`;

export class DigestStore {
  constructor(
    readonly redis: Redis,
    readonly prefix: string,
  ) {}

  #key(...parts: string[]): string {
    return [this.prefix, 'digest', ...parts].join(':');
  }

  /** Bumped on every subscription change; the scheduler role re-syncs when it moves. */
  get versionKey(): string {
    return this.#key('version');
  }

  async save(settings: SubscriptionSettings): Promise<void> {
    const id = subscriptionId(settings.channel, settings.kind);
    await this.redis
      .multi()
      .del(this.#key('sub', id))
      .hset(this.#key('sub', id), 'settings', JSON.stringify(settings))
      .sadd(this.#key('subs'), id)
      .incr(this.versionKey)
      .exec();
  }

  async remove(channel: string, kind: DigestKind): Promise<boolean> {
    const id = subscriptionId(channel, kind);
    const result = await this.redis
      .multi()
      .del(this.#key('sub', id))
      .srem(this.#key('subs'), id)
      .incr(this.versionKey)
      .exec();
    return Number(result?.[0]?.[1] ?? 0) > 0;
  }

  async get(channel: string, kind: DigestKind): Promise<Subscription | undefined> {
    return this.#read(subscriptionId(channel, kind));
  }

  async #read(id: string): Promise<Subscription | undefined> {
    const hash = await this.redis.hgetall(this.#key('sub', id));
    if (!hash.settings) return undefined;
    const sub: Subscription = JSON.parse(hash.settings) as SubscriptionSettings;
    if (hash.stopped) sub.stopped = JSON.parse(hash.stopped) as Subscription['stopped'];
    if (hash.failure) sub.failure = JSON.parse(hash.failure) as Subscription['failure'];
    if (hash.lastRunAt) sub.lastRunAt = hash.lastRunAt;
    if (hash.lastPostedAt) sub.lastPostedAt = hash.lastPostedAt;
    return sub;
  }

  async channelSubscriptions(channel: string): Promise<Subscription[]> {
    const subs = await Promise.all((['reviews', 'rankings'] as const).map((kind) => this.get(channel, kind)));
    return subs.filter((s): s is Subscription => !!s);
  }

  async all(): Promise<Subscription[]> {
    const ids = await this.redis.smembers(this.#key('subs'));
    const subs = await Promise.all(ids.map((id) => this.#read(id)));
    return subs.filter((s): s is Subscription => !!s);
  }

  async version(): Promise<string> {
    return (await this.redis.get(this.versionKey)) ?? '0';
  }

  /** Only fields of an existing subscription: a run that ends after `off` must not bring it back. */
  async #note(channel: string, kind: DigestKind, fields: Record<string, string>): Promise<void> {
    const key = this.#key('sub', subscriptionId(channel, kind));
    if (!(await this.redis.hexists(key, 'settings'))) return;
    await this.redis.hset(key, fields);
  }

  async stop(channel: string, kind: DigestKind, reason: string): Promise<void> {
    await this.#note(channel, kind, { stopped: JSON.stringify({ reason, at: new Date().toISOString() }) });
    await this.redis.incr(this.versionKey);
    // Every Home tab lists the channels' digests: those opened lately are re-published.
    await new HomeMarks(this.redis, this.prefix).everyone().catch(() => {});
  }

  async ran(channel: string, kind: DigestKind, posted: boolean): Promise<void> {
    const at = new Date().toISOString();
    await this.#note(channel, kind, posted ? { lastRunAt: at, lastPostedAt: at } : { lastRunAt: at });
    await this.redis.hdel(this.#key('sub', subscriptionId(channel, kind)), 'failure');
  }

  async failed(channel: string, kind: DigestKind, code: string, told: boolean): Promise<void> {
    await this.#note(channel, kind, {
      failure: JSON.stringify({ code, at: new Date().toISOString(), told }),
    });
  }

  /** Claims a scheduled period for one job: true for that job (and its retries), false for any other. */
  async claimPeriod(channel: string, kind: DigestKind, period: string, jobId: string): Promise<boolean> {
    const key = this.#key('claim', subscriptionId(channel, kind), period);
    if ((await this.redis.set(key, jobId, 'EX', WEEK_SEC, 'NX')) === 'OK') return true;
    return (await this.redis.get(key)) === jobId;
  }

  lockKey(channel: string, kind: DigestKind): string {
    return this.#key('lock', subscriptionId(channel, kind));
  }

  async meta(channel: string, kind: DigestKind): Promise<MarkMeta | undefined> {
    const hash = await this.redis.hgetall(this.#key('meta', subscriptionId(channel, kind)));
    if (!hash.clientId) return undefined;
    const meta: MarkMeta = {
      clientId: hash.clientId,
      since: hash.since ?? '',
      baselineAt: hash.baselineAt ?? '',
    };
    if (hash.rows) meta.rows = Number(hash.rows);
    return meta;
  }

  async rankingMark(channel: string): Promise<Map<string, number>> {
    const hash = await this.redis.hgetall(this.#key('mark', subscriptionId(channel, 'rankings')));
    const out = new Map<string, number>();
    for (const keyword in hash) out.set(keyword, Number(hash[keyword]));
    return out;
  }

  async reviewMark(channel: string): Promise<Set<string>> {
    return new Set(await this.redis.smembers(this.#key('mark', subscriptionId(channel, 'reviews'))));
  }

  async pending(channel: string, kind: DigestKind): Promise<PendingDigest | undefined> {
    const raw = await this.redis.get(this.#key('pending', subscriptionId(channel, kind)));
    return raw ? (JSON.parse(raw) as PendingDigest) : undefined;
  }

  async savePending(channel: string, kind: DigestKind, pending: PendingDigest): Promise<void> {
    await this.redis.set(
      this.#key('pending', subscriptionId(channel, kind)),
      JSON.stringify(pending),
      'EX',
      WEEK_SEC,
    );
  }

  async clearPending(channel: string, kind: DigestKind): Promise<void> {
    await this.redis.del(this.#key('pending', subscriptionId(channel, kind)));
  }

  /**
   * Advances the mark to what the gateway holds now, and stores the digest to post (if any), in one swap: a
   * run that dies after this resumes posting; one that dies before it leaves the old mark in place.
   */
  async advance(
    channel: string,
    kind: DigestKind,
    mark:
      | { positions: ReadonlyMap<string, { position: number; untracked?: boolean }> }
      | { ids: Iterable<string> },
    meta: MarkMeta,
    pending: PendingDigest | undefined,
  ): Promise<void> {
    const id = subscriptionId(channel, kind);
    const markKey = this.#key('mark', id);
    const temp = this.#key('mark-next', id);
    // One pipeline for the whole next mark: a round trip per chunk would cost more than the writes.
    const pipeline = this.redis.pipeline().del(temp);
    let written = 0;
    let batch: string[] = [];
    const flush = async () => {
      if (!batch.length) return;
      if ('positions' in mark) pipeline.hset(temp, ...batch);
      else pipeline.sadd(temp, ...batch);
      batch = [];
    };
    if ('positions' in mark) {
      for (const [keyword, state] of mark.positions) {
        if (state.untracked) continue;
        batch.push(keyword, String(state.position));
        written++;
        if (batch.length >= CHUNK * 2) await flush();
      }
    } else {
      for (const reviewId of mark.ids) {
        batch.push(reviewId);
        written++;
        if (batch.length >= CHUNK) await flush();
      }
    }
    await flush();
    for (const [error] of (await pipeline.exec()) ?? []) if (error) throw error;
    const tx = this.redis.multi();
    if (written) tx.rename(temp, markKey);
    else tx.del(markKey);
    tx.del(this.#key('meta', id)).hset(this.#key('meta', id), { ...meta });
    if (pending) tx.set(this.#key('pending', id), JSON.stringify(pending), 'EX', WEEK_SEC);
    await tx.exec();
  }
}
