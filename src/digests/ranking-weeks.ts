import type { RankingsWeek } from '../charts/index.js';

/**
 * The rankings digest's weekly series, summed while the scan pages (no second read): per week, the average
 * position of the keywords ranked that week and how many were in the top 3 and the top 10. A keyword counts once a
 * week, at its last position of that week. What is held is a few numbers a week plus, per keyword, the week its
 * position belongs to (kept on the keyword's own state by the scan): memory follows weeks and keywords, not rows.
 */

interface WeekSums {
  sum: number;
  ranked: number;
  top3: number;
  top10: number;
}

/** Dates seen are few (one per tracking day): each is parsed once, and every keyword shares the same strings. */
export class DateTable {
  readonly #weeks = new Map<string, { at: string; week: string }>();

  /** The shared copy of a date and its week's Monday (YYYY-MM-DD, UTC); '' for a date that does not parse. */
  get(date: string): { at: string; week: string } {
    let known = this.#weeks.get(date);
    if (!known) {
      const ms = Date.parse(date.length === 10 ? `${date}T00:00:00Z` : date);
      let week = '';
      if (Number.isFinite(ms)) {
        const day = new Date(ms);
        const back = (day.getUTCDay() + 6) % 7;
        week = new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate() - back))
          .toISOString()
          .slice(0, 10);
      }
      known = { at: date, week };
      this.#weeks.set(date, known);
    }
    return known;
  }

  get size(): number {
    return this.#weeks.size;
  }
}

export class RankingWeeks {
  readonly #sums = new Map<string, WeekSums>();

  /** A keyword's last position of a week, once the scan has moved past that week (or at the end). */
  count(week: string, position: number): void {
    if (!week) return;
    let sums = this.#sums.get(week);
    if (!sums) {
      sums = { sum: 0, ranked: 0, top3: 0, top10: 0 };
      this.#sums.set(week, sums);
    }
    sums.sum += position;
    sums.ranked++;
    if (position <= 3) sums.top3++;
    if (position <= 10) sums.top10++;
  }

  get size(): number {
    return this.#sums.size;
  }

  /**
   * Oldest first, the last `limit` weeks that had rows, with the weeks still open (`open`: each keyword's current
   * week and position, not yet counted) added in without being kept: the scan can go on afterwards.
   */
  series(open: Iterable<{ week: string; position: number }>, limit: number): RankingsWeek[] {
    const all = new RankingWeeks();
    for (const [week, sums] of this.#sums) all.#sums.set(week, { ...sums });
    for (const o of open) all.count(o.week, o.position);
    return [...all.#sums.keys()]
      .sort()
      .slice(-limit)
      .map((week) => {
        const s = all.#sums.get(week) as WeekSums;
        return {
          week,
          averagePosition: s.ranked ? s.sum / s.ranked : null,
          top3: s.top3,
          top10: s.top10,
          ranked: s.ranked,
        };
      });
  }
}
