import type { KeywordSeries } from '../charts/index.js';
import type { Row } from '../gateway/index.js';

/**
 * Each keyword's positions by tracking date, from the same rows the rankings view reads (one pass beside
 * latestRankings): a chart of them reads nothing more. Dates are kept once each (a row's own string would be
 * one more string per row), positions as numbers, null where a row had none (not ranked that day).
 */
export class KeywordHistory {
  readonly #byKeyword = new Map<string, Array<[string, number | null]>>();
  /** Lower-cased keyword → the keyword as the gateway spells it. */
  readonly #names = new Map<string, string>();
  readonly #dates = new Map<string, string>();
  #oldest = '';
  #newest = '';

  constructor(rows: readonly Row[]) {
    for (const row of rows) {
      const keyword = typeof row.keyword === 'string' ? row.keyword : undefined;
      const when = row.tracked_at ?? row.created_at;
      if (keyword === undefined || typeof when !== 'string' || when.length < 10) continue;
      const day = when.slice(0, 10);
      const date = this.#dates.get(day) ?? day;
      this.#dates.set(day, date);
      const position = typeof row.position === 'number' && row.position > 0 ? row.position : null;
      let points = this.#byKeyword.get(keyword);
      if (!points) {
        points = [];
        this.#byKeyword.set(keyword, points);
        if (!this.#names.has(keyword.toLowerCase())) this.#names.set(keyword.toLowerCase(), keyword);
      }
      points.push([date, position]);
      if (!this.#oldest || date < this.#oldest) this.#oldest = date;
      if (date > this.#newest) this.#newest = date;
    }
  }

  /** The oldest and newest tracking dates in the rows ('' when there were none). */
  get span(): { oldest: string; newest: string } {
    return { oldest: this.#oldest, newest: this.#newest };
  }

  /** The keyword as the gateway spells it, matched in any case. */
  find(keyword: string): string | undefined {
    return this.#byKeyword.has(keyword) ? keyword : this.#names.get(keyword.toLowerCase());
  }

  /** A keyword's positions from `from` to `to` (YYYY-MM-DD, both included), oldest first; one per date. */
  series(keyword: string, from: string, to: string): KeywordSeries {
    const byDate = new Map<string, number | null>();
    for (const [date, position] of this.#byKeyword.get(keyword) ?? []) {
      if (date < from || date > to) continue;
      // Two rows of one day: a position beats none.
      if (!byDate.has(date) || byDate.get(date) === null) byDate.set(date, position);
    }
    const points = [...byDate]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([date, position]) => ({ date, position }));
    return { keyword, points };
  }
}
