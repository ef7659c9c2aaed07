import type { Row } from '../gateway/types.js';

/** The rows a read selects, before paging: an exact-match filter, then a stable order. Pure, so it can be cached. */

export interface Selection {
  order?: string;
  direction: 'asc' | 'desc';
  filter?: { field: string; value: string };
}

function isMissing(value: unknown): boolean {
  return value === undefined || value === null;
}

function compareValues(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const left = String(a);
  const right = String(b);
  return left < right ? -1 : left > right ? 1 : 0;
}

/** docs/gateway-api.md §2.3 exact match, compared as text: `published=true` matches the boolean true. */
function matchesFilter(row: Row, field: string, value: string): boolean {
  const actual = row[field];
  return !isMissing(actual) && String(actual) === value;
}

/**
 * Filters and orders. Rows lacking the order field keep their natural order after the others; the sort is
 * stable and `desc` negates the comparison instead of reversing, so ties stay in natural order both ways.
 */
export function selectRows(rows: readonly Row[], selection: Selection): readonly Row[] {
  const { filter, order, direction } = selection;
  const filtered = filter ? rows.filter((row) => matchesFilter(row, filter.field, filter.value)) : rows;
  if (!order || !filtered.some((row) => !isMissing(row[order]))) return filtered;
  const sign = direction === 'desc' ? -1 : 1;
  return [...filtered].sort((x, y) => {
    const a = x[order];
    const b = y[order];
    const aMissing = isMissing(a);
    const bMissing = isMissing(b);
    if (aMissing || bMissing) return aMissing === bMissing ? 0 : aMissing ? 1 : -1;
    return sign * compareValues(a, b);
  });
}

export function selectionKey(selection: Selection): string {
  const filter = selection.filter ? `${selection.filter.field}=${selection.filter.value}` : '';
  return `${selection.order ?? ''}\u0000${selection.direction}\u0000${filter}`;
}
