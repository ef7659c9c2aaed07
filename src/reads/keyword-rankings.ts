import type { Row } from '../gateway/index.js';

/**
 * Keyword rows (one per keyword per tracking date, docs/gateway-api.md §2.2) as rankings: each keyword once,
 * at its latest observation, with its change since the observation before. Rows must come newest first; only
 * what the rows hold is known, so a keyword seen once is `new` only when the read reached the oldest row.
 */
export function latestRankings(rows: readonly Row[], complete: boolean): Row[] {
  const latest = new Map<string, Row>();
  const previous = new Map<string, Row>();
  for (const row of rows) {
    const keyword = typeof row.keyword === 'string' ? row.keyword : undefined;
    if (keyword === undefined) continue;
    if (!latest.has(keyword)) latest.set(keyword, row);
    else if (!previous.has(keyword) && whenOf(row) !== whenOf(latest.get(keyword) as Row))
      previous.set(keyword, row);
  }
  return [...latest].map(([keyword, row]) => {
    const before = previous.get(keyword);
    const now = typeof row.position === 'number' ? row.position : undefined;
    const then = typeof before?.position === 'number' ? before.position : undefined;
    const change =
      now !== undefined && then !== undefined
        ? then - now
        : before === undefined && complete
          ? 'new'
          : undefined;
    const out: Row = { keyword, position: row.position };
    if (change !== undefined) out.change = change;
    for (const key of ['search_volume', 'difficulty', 'url']) if (row[key] !== undefined) out[key] = row[key];
    const when = row.tracked_at ?? row.created_at;
    if (when !== undefined) out.tracked_at = when;
    if (row.status !== undefined && row.status !== 'active') out.status = row.status;
    return out;
  });
}

function whenOf(row: Row): unknown {
  return row.tracked_at ?? row.created_at;
}
