import type { TopLevelSpec } from 'vega-lite';
import { chartFrame, chartLabel, positionTicks, SERIES_COLOURS, SERIES_DASHES } from './chart-style.js';

/**
 * Ranking positions over time: one line per keyword (ten at most, each named in the legend), the axis turned
 * over so #1 is at the top, and a gap wherever a keyword was not ranked (no position, or no row that day).
 */

/** At most this many keywords are drawn: more lines than that cannot be told apart. */
export const MAX_CHART_KEYWORDS = 10;

interface RankingPoint {
  /** YYYY-MM-DD. */
  date: string;
  /** Null: not ranked that day. */
  position: number | null;
}

export interface KeywordSeries {
  keyword: string;
  /** Oldest first. */
  points: readonly RankingPoint[];
}

export interface RankingsChartInput {
  clientLabel: string;
  /** The period shown, YYYY-MM-DD. */
  from: string;
  to: string;
  series: readonly KeywordSeries[];
  /** Said under the title (where the data read stopped, say). */
  note?: string;
}

/** One row of the chart's data: a keyword on a tracking date, ranked or not. */
interface Row {
  keyword: string;
  date: string;
  position: number | null;
  /** Drawn as a dot too: a position with no neighbour to draw a line to. */
  dot: boolean;
}

/** Labels as the legend shows them, told apart when two keywords cut to the same label. */
export function seriesLabels(series: readonly KeywordSeries[]): string[] {
  const seen = new Map<string, number>();
  return series.map(({ keyword }) => {
    const label = chartLabel(keyword) || '(no name)';
    const count = (seen.get(label) ?? 0) + 1;
    seen.set(label, count);
    return count === 1 ? label : `${label} (${count})`;
  });
}

/** Every keyword on every date any keyword was tracked in the period: a missing day is a gap, not a line across it. */
function chartRows(
  series: readonly KeywordSeries[],
  labels: readonly string[],
  from: string,
  to: string,
): Row[] {
  const dates = [...new Set(series.flatMap((s) => s.points.map((p) => p.date)))]
    .filter((d) => d >= from && d <= to)
    .sort();
  const rows: Row[] = [];
  series.forEach((s, i) => {
    const byDate = new Map(s.points.map((p) => [p.date, p.position]));
    const positions = dates.map((d) => byDate.get(d) ?? null);
    positions.forEach((position, j) => {
      const alone =
        position !== null && (positions[j - 1] ?? null) === null && (positions[j + 1] ?? null) === null;
      rows.push({ keyword: labels[i] ?? '', date: dates[j] ?? '', position, dot: alone });
    });
  });
  return rows;
}

/** The chart's axes and colour: dates across, positions down from #1, a colour per keyword. */
function encodings(labels: string[], from: string, to: string, worst: number) {
  const x = {
    field: 'date',
    type: 'temporal' as const,
    title: null,
    scale: { type: 'utc' as const, domain: [from, to] },
    axis: { format: '%b %d', labelOverlap: true as const, grid: false },
  };
  const y = {
    field: 'position',
    type: 'quantitative' as const,
    title: 'Position (#1 at the top)',
    scale: { domain: [1, worst], reverse: true, zero: false, nice: false },
    axis: { values: positionTicks(worst) },
  };
  const colour = {
    field: 'keyword',
    type: 'nominal' as const,
    title: null,
    sort: labels,
    scale: { domain: labels, range: SERIES_COLOURS.slice(0, labels.length) },
    // Right of the plot, with room for a long keyword (cut with an ellipsis past that).
    legend: { symbolType: 'stroke' as const, symbolSize: 900, symbolStrokeWidth: 5, labelFontSize: 17 },
  };
  return { x, y, colour };
}

/** The Vega-Lite specification of a rankings chart; `series` beyond the tenth are left out. */
export function rankingsChartSpec(input: RankingsChartInput): TopLevelSpec {
  const series = input.series.slice(0, MAX_CHART_KEYWORDS);
  const labels = seriesLabels(series);
  const values = chartRows(series, labels, input.from, input.to);
  const worst = Math.max(10, ...values.map((v) => v.position ?? 0));
  const { x, y, colour } = encodings(labels, input.from, input.to, worst);
  const count = `${series.length} keyword${series.length === 1 ? '' : 's'}`;
  return {
    ...chartFrame(
      `Rankings · ${input.clientLabel}`,
      `${count}, ${input.from} to ${input.to}; a gap is a day it was not ranked${input.note ? `; ${input.note}` : ''}`,
    ),
    data: { values },
    layer: [
      {
        // A null position breaks the line there instead of joining the points either side of it.
        mark: { type: 'line', strokeWidth: 4, invalid: 'break-paths-show-domains' },
        encoding: {
          x,
          y,
          color: colour,
          // The same field and title as the colour: one legend shows each keyword's colour and dash together.
          strokeDash: {
            field: 'keyword',
            type: 'nominal',
            title: null,
            sort: labels,
            scale: { domain: labels, range: SERIES_DASHES.slice(0, labels.length) },
          },
        },
      },
      {
        transform: [{ filter: 'datum.dot' }],
        mark: { type: 'point', filled: true, size: 160, opacity: 1 },
        encoding: { x, y, color: colour },
      },
    ],
  };
}
