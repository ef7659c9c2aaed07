import type { Row } from '../gateway/index.js';

/**
 * Orders people ask for that the gateway cannot give (docs/gateway-api.md §4.2 lists what it can): the bot
 * reads a bounded number of the newest rows and sorts them itself, and the page says so. `natural` is the
 * direction a bare `order=position` means (best first); `asc`/`desc` still choose.
 */
export interface LocalSort {
  /** As typed after `order=`. */
  name: string;
  /** The row field it sorts by. */
  field: string;
  natural: 'asc' | 'desc';
  /** How each direction reads: `{ asc: 'best first', desc: 'worst first' }`. */
  words: { asc: string; desc: string };
  /** Values that are words, not numbers (`high`, `medium`, `low`), as numbers. */
  rank?: (value: unknown) => number | undefined;
}

/** Rows read for a local sort: enough for the sort to mean something, few enough to answer in a second. */
export const LOCAL_SORT_ROWS = 5_000;

const PRIORITY: Readonly<Record<string, number>> = {
  urgent: 4,
  critical: 4,
  high: 3,
  medium: 2,
  normal: 2,
  low: 1,
};

const byResource: Readonly<Record<string, readonly LocalSort[]>> = {
  keywords: [
    {
      name: 'position',
      field: 'position',
      natural: 'asc',
      words: { asc: 'best first', desc: 'worst first' },
    },
    {
      name: 'volume',
      field: 'search_volume',
      natural: 'desc',
      words: { asc: 'lowest first', desc: 'highest first' },
    },
    {
      name: 'kd',
      field: 'difficulty',
      natural: 'desc',
      words: { asc: 'easiest first', desc: 'hardest first' },
    },
    {
      name: 'change',
      field: 'change',
      natural: 'desc',
      words: { asc: 'biggest falls first', desc: 'biggest climbs first' },
    },
  ],
  reviews: [
    {
      name: 'rating',
      field: 'rating',
      natural: 'asc',
      words: { asc: 'lowest first', desc: 'highest first' },
    },
  ],
  seo_tasks: [
    {
      name: 'priority',
      field: 'priority',
      natural: 'desc',
      words: { asc: 'lowest first', desc: 'highest first' },
      rank: (v) => (typeof v === 'number' ? v : PRIORITY[String(v).toLowerCase()]),
    },
  ],
};

export function localSorts(resource: string): readonly LocalSort[] {
  return byResource[resource] ?? [];
}

export function localSort(resource: string, name: string | undefined): LocalSort | undefined {
  if (name === undefined) return undefined;
  return localSorts(resource).find((s) => s.name === name.toLowerCase());
}

/** A stable sort by `sort`; rows without a value keep their order after the others, whichever direction. */
export function sortRows<T extends Row>(rows: readonly T[], sort: LocalSort, direction: 'asc' | 'desc'): T[] {
  const sign = direction === 'asc' ? 1 : -1;
  const value = (row: Row): number | undefined => {
    const v = row[sort.field];
    const n = sort.rank
      ? sort.rank(v)
      : typeof v === 'number'
        ? v
        : typeof v === 'string'
          ? Number(v)
          : Number.NaN;
    return n !== undefined && Number.isFinite(n) ? n : undefined;
  };
  const keyed = rows.map((row, i) => ({ row, i, v: value(row) }));
  keyed.sort((a, b) => {
    if (a.v === undefined || b.v === undefined) {
      if (a.v === b.v) return a.i - b.i;
      return a.v === undefined ? 1 : -1;
    }
    return sign * (a.v - b.v) || a.i - b.i;
  });
  return keyed.map((k) => k.row);
}
