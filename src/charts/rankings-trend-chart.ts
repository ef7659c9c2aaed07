import type { TopLevelSpec } from 'vega-lite';
import { chartFrame, chartLabel, positionTicks } from './chart-style.js';

/**
 * The rankings digest's chart: week by week, the average position of the tracked keywords (a line, #1 at the
 * top of its axis) and how many are in the top 3 and the top 10 (bars), with the week's movers named.
 */

/** One week of a client's rankings, as the digest's scan sums it up. */
export interface RankingsWeek {
  /** The week's Monday, YYYY-MM-DD (UTC). */
  week: string;
  /** Null when no keyword had a position that week. */
  averagePosition: number | null;
  top3: number;
  top10: number;
  /** Keywords with a position that week. */
  ranked: number;
}

export interface RankingsTrendInput {
  clientLabel: string;
  /** Oldest first; the last 12 are drawn. */
  weeks: readonly RankingsWeek[];
  /** Keywords that moved most, biggest first; the first few are named. */
  movers: readonly string[];
}

export const TREND_WEEKS = 12;
const MOVERS_NAMED = 5;
const GROUPS = ['Top 3', 'Top 10', 'Average position'];
const GROUP_COLOURS = ['#0072B2', '#56B4E9', '#000000'];

/** "Movers: a, b, c and 4 more", cut to what a subtitle line holds. */
export function moversLine(movers: readonly string[]): string {
  if (movers.length === 0) return 'No keyword moved much';
  const named = movers.slice(0, MOVERS_NAMED).map((m) => chartLabel(m, 32));
  const more = movers.length - named.length;
  return `Movers: ${named.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
}

/** The Vega-Lite specification of the rankings trend chart. */
export function rankingsTrendSpec(input: RankingsTrendInput): TopLevelSpec {
  const weeks = input.weeks.slice(-TREND_WEEKS);
  const bars = weeks.flatMap((w) => [
    { week: w.week, group: 'Top 3', count: w.top3 },
    { week: w.week, group: 'Top 10', count: w.top10 },
  ]);
  const line = weeks
    .filter((w) => w.averagePosition !== null)
    .map((w) => ({ week: w.week, average: Math.round((w.averagePosition ?? 0) * 10) / 10 }));
  const worst = Math.max(10, ...line.map((l) => Math.ceil(l.average)));
  const x = {
    field: 'week',
    type: 'ordinal' as const,
    title: 'Week of',
    sort: weeks.map((w) => w.week),
    axis: { labelAngle: 0, labelExpr: 'utcFormat(toDate(datum.value + "T00:00:00Z"), "%b %d")' },
  };
  const colour = { scale: { domain: GROUPS, range: GROUP_COLOURS }, title: null };
  return {
    ...chartFrame(`Rankings, week by week · ${input.clientLabel}`, moversLine(input.movers)),
    layer: [
      {
        data: { values: bars },
        mark: { type: 'bar' },
        encoding: {
          x,
          xOffset: { field: 'group', type: 'nominal', sort: GROUPS },
          y: {
            field: 'count',
            type: 'quantitative',
            title: 'Keywords in the top 3 and top 10',
            axis: { tickMinStep: 1 },
          },
          color: {
            field: 'group',
            type: 'nominal',
            ...colour,
            legend: { orient: 'top', symbolType: 'square' },
          },
        },
      },
      {
        data: { values: line },
        mark: { type: 'line', strokeWidth: 4, point: { filled: true, size: 160 } },
        encoding: {
          x,
          y: {
            field: 'average',
            type: 'quantitative',
            title: 'Average position (#1 at the top)',
            scale: { domain: [1, worst], reverse: true, zero: false },
            axis: { orient: 'right', grid: false, values: positionTicks(worst) },
          },
          color: { datum: 'Average position', type: 'nominal', ...colour },
        },
      },
    ],
    resolve: { scale: { y: 'independent' } },
  };
}
