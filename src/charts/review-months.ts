import type { Row } from '../gateway/index.js';

/**
 * Reviews folded into counts per month and star rating, as rows stream past (a digest's scan, a chart's read):
 * a few numbers a month, whatever the number of reviews.
 */

export interface ReviewMonth {
  /** YYYY-MM. */
  month: string;
  /** Reviews of one to five stars, in that order. */
  counts: number[];
  /** The month's average rating, or null when it had no rated review. */
  average: number | null;
}

/** `YYYY-MM` months from `from`'s to `to`'s, both included. */
export function monthsBetween(from: string, to: string): string[] {
  const months: string[] = [];
  let [year, month] = from.slice(0, 7).split('-').map(Number) as [number, number];
  const last = to.slice(0, 7);
  for (let i = 0; i < 1_200; i++) {
    const name = `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}`;
    if (name > last) break;
    months.push(name);
    month += 1;
    if (month > 12) {
      month = 1;
      year += 1;
    }
  }
  return months;
}

export class ReviewMonths {
  readonly #counts = new Map<string, number[]>();
  #newest = '';

  /** One review row; one without a date or a 1–5 rating is not counted. */
  add(row: Row): void {
    const when = typeof row.created_at === 'string' ? row.created_at : '';
    const rating = typeof row.rating === 'number' ? row.rating : Number(row.rating);
    if (!/^\d{4}-\d{2}/.test(when) || !Number.isFinite(rating)) return;
    const stars = Math.min(5, Math.max(1, Math.round(rating)));
    const month = when.slice(0, 7);
    let counts = this.#counts.get(month);
    if (!counts) {
      counts = [0, 0, 0, 0, 0];
      this.#counts.set(month, counts);
    }
    counts[stars - 1] = (counts[stars - 1] ?? 0) + 1;
    if (when > this.#newest) this.#newest = when;
  }

  /** The date of the newest review counted (YYYY-MM-DD…), or '' when none was. */
  get newest(): string {
    return this.#newest;
  }

  /** Every month from `from`'s to `to`'s, oldest first, a month without reviews as zeros. */
  between(from: string, to: string): ReviewMonth[] {
    return monthsBetween(from, to).map((month) => {
      const counts = [...(this.#counts.get(month) ?? [0, 0, 0, 0, 0])];
      const total = counts.reduce((a, b) => a + b, 0);
      const sum = counts.reduce((a, n, i) => a + n * (i + 1), 0);
      return { month, counts, average: total ? Math.round((sum / total) * 100) / 100 : null };
    });
  }
}
