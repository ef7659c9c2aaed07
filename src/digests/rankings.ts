import type { RankingsWeek } from '../charts/index.js';
import type { Row } from '../gateway/index.js';
import type { RankingFilters } from './filters.js';
import { DateTable, RankingWeeks } from './ranking-weeks.js';

/**
 * Rankings. Keyword rows are observations over time: a keyword's position now is its newest row
 * (by `tracked_at`, else `created_at`). The scan keeps per-keyword state only (never the rows), so a client
 * with 100,000 rows costs what its keywords cost; the diff compares it with the positions reported last time.
 * Bounded by design: per keyword the newest position, the best before it, the best, the last SPARK_POINTS
 * positions for the sparkline and the week they belong to; dates are shared strings (one per tracking day); the
 * weekly series for the chart is a few numbers a week (ranking-weeks.ts). A million rows of the same keywords
 * cost what ten thousand do (test/integration/digest-memory.test.ts).
 */

/** How many of a keyword's newest positions the sparkline shows. */
const SPARK_POINTS = 8;

export interface KeywordNow {
  position: number;
  /** The newest observation's date. */
  at: string;
  volume: number;
  /** Best (lowest) position of every observation. */
  best: number;
  /** Best position before the newest observation (Infinity when there is none). */
  bestBefore: number;
  /** The newest positions, oldest first, at most SPARK_POINTS. */
  recent: number[];
  recentAt: string[];
  /** The Monday of the newest observation's week: its position is counted in the weekly series once a later
   * week is read (or at the end). */
  week: string;
  /** The newest row says the keyword is no longer tracked (`status` paused or removed). */
  untracked: boolean;
}

const UNTRACKED = new Set(['paused', 'inactive', 'removed', 'deleted', 'archived', 'untracked']);

function positionOf(row: Row): number | undefined {
  const p = typeof row.position === 'number' ? row.position : Number(row.position);
  return Number.isFinite(p) && p > 0 ? Math.round(p) : undefined;
}

function dateOf(row: Row): string {
  const at = row.tracked_at ?? row.created_at;
  return typeof at === 'string' ? at : '';
}

/** Per-keyword state from keyword rows in any order (chronological order is the fast path). */
export class RankingScan {
  readonly keywords = new Map<string, KeywordNow>();
  /** Keywords seen only in rows without a position (not ranked yet): counted, never diffed. */
  readonly #unranked = new Set<string>();
  readonly #dates = new DateTable();
  readonly #weeks = new RankingWeeks();
  rows = 0;

  /** What the scan holds, whatever the rows: it must stay flat as rows of the same keywords grow. */
  footprint(): { keywords: number; unranked: number; dates: number; weeks: number; sparkPoints: number } {
    let sparkPoints = 0;
    for (const state of this.keywords.values()) sparkPoints += state.recent.length;
    return {
      keywords: this.keywords.size,
      unranked: this.#unranked.size,
      dates: this.#dates.size,
      weeks: this.#weeks.size,
      sparkPoints,
    };
  }

  /** The weekly series of the tracked keywords, oldest first, the last `limit` weeks (the chart's data). */
  weeks(limit: number): RankingsWeek[] {
    const open = [...this.keywords.values()].filter((s) => !s.untracked);
    return this.#weeks.series(open, limit);
  }

  /** Keywords tracked now (their newest row is not paused). */
  tracked(): number {
    let n = 0;
    for (const state of this.keywords.values()) if (!state.untracked) n++;
    return n;
  }

  /**
   * Every keyword the rows name, as `/gateway keywords` counts them, and those of them the digest does not
   * track: paused (their newest row says so) and unranked (no row with a position).
   */
  census(): { all: number; paused: number; unranked: number } {
    let unranked = 0;
    for (const keyword of this.#unranked) if (!this.keywords.has(keyword)) unranked++;
    const paused = this.keywords.size - this.tracked();
    return { all: this.keywords.size + unranked, paused, unranked };
  }

  add(row: Row): void {
    const keyword = row.keyword;
    const position = positionOf(row);
    if (typeof keyword !== 'string' || !keyword) return;
    if (position === undefined) {
      this.#unranked.add(keyword);
      return;
    }
    this.rows++;
    const { at, week } = this.#dates.get(dateOf(row));
    const volume = typeof row.search_volume === 'number' ? row.search_volume : Number(row.search_volume) || 0;
    const untracked = typeof row.status === 'string' && UNTRACKED.has(row.status.toLowerCase());
    const state = this.keywords.get(keyword);
    if (!state) {
      this.keywords.set(keyword, {
        position,
        at,
        volume,
        best: position,
        bestBefore: Number.POSITIVE_INFINITY,
        recent: [position],
        recentAt: [at],
        week,
        untracked,
      });
      return;
    }
    if (position < state.best) state.best = position;
    if (at > state.at) this.#newer(state, { position, at, week, volume, untracked });
    else if (at === state.at) {
      // Two rows for one date: the later row read wins, as a re-tracked position would.
      state.recent[state.recent.length - 1] = position;
      state.position = position;
      state.untracked = untracked;
    } else {
      // An older observation read late: history only (the weekly series has counted past it).
      state.bestBefore = Math.min(state.bestBefore, position);
      let i = state.recentAt.length;
      while (i > 0 && (state.recentAt[i - 1] as string) > at) i--;
      state.recent.splice(i, 0, position);
      state.recentAt.splice(i, 0, at);
      trimSpark(state);
    }
  }

  /** A newer observation: the week left behind is counted, and the newest position moves on. */
  #newer(
    state: KeywordNow,
    row: { position: number; at: string; week: string; volume: number; untracked: boolean },
  ): void {
    if (row.week !== state.week) {
      if (!state.untracked) this.#weeks.count(state.week, state.position);
      state.week = row.week;
    }
    state.bestBefore = Math.min(state.bestBefore, state.position);
    state.position = row.position;
    state.at = row.at;
    state.volume = row.volume || state.volume;
    state.untracked = row.untracked;
    state.recent.push(row.position);
    state.recentAt.push(row.at);
    trimSpark(state);
  }
}

function trimSpark(state: KeywordNow): void {
  if (state.recent.length > SPARK_POINTS) {
    state.recent.shift();
    state.recentAt.shift();
  }
}

type Crossing = 'entered top 3' | 'left top 3' | 'entered top 10' | 'left top 10';

export interface KeywordMove {
  keyword: string;
  from: number;
  to: number;
  /** Positive: improved (a smaller position). */
  change: number;
  volume: number;
  best: number;
  newBest: boolean;
  crossings: Crossing[];
  spark: number[];
  /** Change weighted by search volume: the order movers are listed in. */
  weight: number;
}

export interface RankingDiff {
  moved: KeywordMove[];
  /** Keywords that fell out of the top 10: they lead, whatever the filters. */
  fellOut: KeywordMove[];
  added: Array<{ keyword: string; position: number; volume: number }>;
  dropped: Array<{ keyword: string; position: number }>;
  /** Keywords whose position did not change (counted, never listed). */
  unchanged: number;
  /** Moved keywords the filters left out. */
  filteredOut: number;
  tracked: number;
}

function crossingsOf(from: number, to: number): Crossing[] {
  const out: Crossing[] = [];
  for (const n of [3, 10] as const) {
    if (from > n && to <= n) out.push(`entered top ${n}`);
    if (from <= n && to > n) out.push(`left top ${n}`);
  }
  return out;
}

function keywordMatches(keyword: string, filters: RankingFilters): boolean {
  return !filters.keyword || keyword.toLowerCase().includes(filters.keyword);
}

/** The scan against the positions reported last time; `previous` undefined is the first run (no diff). */
export function diffRankings(
  now: ReadonlyMap<string, KeywordNow>,
  previous: ReadonlyMap<string, number>,
  filters: RankingFilters = {},
): RankingDiff {
  const diff: RankingDiff = {
    moved: [],
    fellOut: [],
    added: [],
    dropped: [],
    unchanged: 0,
    filteredOut: 0,
    tracked: 0,
  };
  const inTop = (...positions: number[]) =>
    filters.top === undefined || positions.some((p) => p <= (filters.top as number));
  for (const [keyword, state] of now) {
    if (state.untracked) continue;
    diff.tracked++;
    const from = previous.get(keyword);
    if (from === undefined) {
      if (inTop(state.position) && keywordMatches(keyword, filters)) {
        diff.added.push({ keyword, position: state.position, volume: state.volume });
      }
      continue;
    }
    if (from === state.position) {
      diff.unchanged++;
      continue;
    }
    const move = moveOf(keyword, from, state);
    if (move.crossings.includes('left top 10')) {
      diff.fellOut.push(move);
      continue;
    }
    const shown =
      Math.abs(move.change) >= (filters.minChange ?? 1) &&
      inTop(from, state.position) &&
      keywordMatches(keyword, filters);
    if (shown) diff.moved.push(move);
    else diff.filteredOut++;
  }
  for (const [keyword, position] of previous) {
    if ((now.get(keyword)?.untracked ?? true) && inTop(position) && keywordMatches(keyword, filters)) {
      diff.dropped.push({ keyword, position });
    }
  }
  return sorted(diff);
}

/** A keyword's move since the last report, weighed by how far it moved and how often it is searched. */
function moveOf(keyword: string, from: number, state: KeywordNow): KeywordMove {
  const change = from - state.position;
  return {
    keyword,
    from,
    to: state.position,
    change,
    volume: state.volume,
    best: state.best,
    newBest: state.position < state.bestBefore && state.position === state.best,
    crossings: crossingsOf(from, state.position),
    spark: state.recent,
    weight: Math.abs(change) * Math.sqrt(Math.max(1, state.volume)),
  };
}

/** The heaviest moves first; new keywords by position, then volume; dropped ones by their last position. */
function sorted(diff: RankingDiff): RankingDiff {
  const byWeight = (a: KeywordMove, b: KeywordMove) =>
    b.weight - a.weight || a.keyword.localeCompare(b.keyword);
  diff.moved.sort(byWeight);
  diff.fellOut.sort(byWeight);
  diff.added.sort((a, b) => a.position - b.position || b.volume - a.volume);
  diff.dropped.sort((a, b) => a.position - b.position);
  return diff;
}

/** True when the diff has anything to post. */
export function rankingsChanged(diff: RankingDiff): boolean {
  return diff.moved.length + diff.fellOut.length + diff.added.length + diff.dropped.length > 0;
}
