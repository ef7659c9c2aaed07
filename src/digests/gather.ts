import { type RankingsWeek, ReviewMonths, TREND_WEEKS } from '../charts/index.js';
import type { GatewayClient } from '../gateway/index.js';
import type { DigestFilters, DigestKind } from './filters.js';
import { diffRankings, type KeywordNow, type RankingDiff, RankingScan } from './rankings.js';
import { diffReviews, type NewReview, type ReviewDiff, toNewReview } from './reviews.js';
import type { DigestStore, MarkMeta } from './store.js';

/**
 * Reads what the gateway holds now for a (channel, kind) and compares it with the stored mark. Rows are
 * paged and streamed: only per-keyword state (rankings) or the ids and the new reviews (reviews) are kept.
 * Nothing is written here: the caller renders the digest and then advances the mark with it, in one swap.
 */

export type Gathered =
  | {
      kind: 'reviews';
      first: boolean;
      since: string;
      tracked: number;
      /** Rows read: how large the client is (spread.ts). */
      rows: number;
      diff: ReviewDiff | undefined;
      mark: { ids: Iterable<string> };
      /** Every review counted by month and rating on the way: the digest's chart, with no read of its own. */
      months: ReviewMonths;
    }
  | {
      kind: 'rankings';
      first: boolean;
      since: string;
      tracked: number;
      rows: number;
      /** Every keyword the client has, and those not tracked (paused, or never given a position). */
      census: { all: number; paused: number; unranked: number };
      diff: RankingDiff | undefined;
      mark: { positions: ReadonlyMap<string, KeywordNow> };
      /** The last weeks, summed by the same scan: the digest's chart, with no read of its own. */
      weeks: RankingsWeek[];
    };

export interface GatherInput {
  channel: string;
  kind: DigestKind;
  clientId: string;
  filters: DigestFilters;
}

type Reader = Pick<GatewayClient, 'rows'>;

/**
 * A digest folds rows as they pass and keeps none, so its walk may be longer than a collecting read's: the
 * largest clients have over a million keyword rows. The limit only stops a gateway whose pages never end.
 */
const DIGEST_SCAN_ROWS = 5_000_000;

/** Every keyword row, oldest observation first, folded into per-keyword state. */
async function scanRankings(gateway: Reader, clientId: string): Promise<RankingScan> {
  const scan = new RankingScan();
  for await (const row of gateway.rows('keywords', {
    clientId,
    order: 'tracked_at',
    direction: 'asc',
    scanLimit: DIGEST_SCAN_ROWS,
  })) {
    scan.add(row);
  }
  return scan;
}

export async function gatherDigest(
  gateway: Reader,
  store: DigestStore,
  input: GatherInput,
): Promise<Gathered & { meta: MarkMeta | undefined }> {
  const meta = await store.meta(input.channel, input.kind);
  // A mark of another client (the channel was bound to another since) is no baseline for this one.
  const first = !meta || meta.clientId !== input.clientId;
  const since = first ? '' : meta.since;
  if (input.kind === 'rankings') {
    // The mark is read while the first pages are: Redis and the gateway answer side by side.
    const marked = first ? undefined : store.rankingMark(input.channel);
    marked?.catch(() => {});
    const scan = await scanRankings(gateway, input.clientId);
    const previous = await marked;
    return {
      kind: 'rankings',
      first,
      since,
      meta,
      tracked: scan.tracked(),
      rows: scan.rows,
      census: scan.census(),
      diff: previous ? diffRankings(scan.keywords, previous, input.filters) : undefined,
      mark: { positions: scan.keywords },
      weeks: scan.weeks(TREND_WEEKS),
    };
  }
  const seen = first ? undefined : await store.reviewMark(input.channel);
  const ids = new Set<string>();
  const fresh: NewReview[] = [];
  const months = new ReviewMonths();
  for await (const row of gateway.rows('reviews', {
    clientId: input.clientId,
    order: 'created_at',
    scanLimit: DIGEST_SCAN_ROWS,
  })) {
    const id = row.id === undefined || row.id === null ? '' : String(row.id);
    // Offset paging while reviews arrive can hand one row over twice (it slides past a page boundary).
    if (!id || ids.has(id)) continue;
    ids.add(id);
    months.add(row);
    // New is an id not seen before, whatever its date: a late arrival dated before the last digest counts.
    if (seen && !seen.has(id)) fresh.push(toNewReview(row));
  }
  return {
    kind: 'reviews',
    first,
    since,
    meta,
    tracked: ids.size,
    rows: ids.size,
    diff: seen ? diffReviews(fresh, input.filters) : undefined,
    mark: { ids },
    months,
  };
}
