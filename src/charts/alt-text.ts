import { chartLabel } from './chart-style.js';
import { MAX_CHART_KEYWORDS, type RankingsChartInput, seriesLabels } from './rankings-chart.js';
import { moversLine, type RankingsTrendInput, TREND_WEEKS } from './rankings-trend-chart.js';
import type { ReviewsChartInput } from './reviews-chart.js';

/**
 * Each chart's main figures in words, for screen readers and notifications (Slack's alt text): plain text, no
 * mrkdwn, at most ALT_MAX characters.
 */

const ALT_MAX = 1_000;

const fmt = (n: number) => n.toLocaleString('en-US');
const cut = (text: string) => (text.length > ALT_MAX ? `${text.slice(0, ALT_MAX - 1)}…` : text);
const position = (p: number | null | undefined) => (p === null || p === undefined ? 'not ranked' : `#${p}`);

/** A keyword's first and last position in the period (null: not ranked then). */
export function firstAndLast(points: RankingsChartInput['series'][number]['points']): {
  first: number | null;
  last: number | null;
} {
  const ranked = points.filter((p) => p.position !== null);
  return { first: ranked[0]?.position ?? null, last: ranked.at(-1)?.position ?? null };
}

export function rankingsAltText(input: RankingsChartInput): string {
  const series = input.series.slice(0, MAX_CHART_KEYWORDS);
  const labels = seriesLabels(series);
  const lines = series.map((s, i) => {
    const { first, last } = firstAndLast(s.points);
    return `${labels[i]}: ${position(first)} to ${position(last)}`;
  });
  return cut(
    `Line chart of the ranking positions of ${series.length} keyword${series.length === 1 ? '' : 's'} for ${chartLabel(input.clientLabel)}, ${input.from} to ${input.to}, #1 at the top. ${lines.join('; ')}.`,
  );
}

export function reviewsAltText(input: ReviewsChartInput): string {
  const months = input.months;
  const total = months.reduce((sum, m) => sum + m.counts.reduce((a, b) => a + b, 0), 0);
  const lines = [...months]
    .reverse()
    .filter((m) => m.average !== null)
    .map(
      (m) =>
        `${m.month}: ${fmt(m.counts.reduce((a, b) => a + b, 0))} reviews, average ${m.average?.toFixed(1)} stars`,
    );
  const span = months.length ? `${months[0]?.month} to ${months.at(-1)?.month}` : '';
  return cut(
    `Bar chart of ${fmt(total)} reviews per month by star rating for ${chartLabel(input.clientLabel)}, ${span}, with each month's average rating as a line. Newest first: ${lines.join('; ') || 'no rated review'}.`,
  );
}

export function rankingsTrendAltText(input: RankingsTrendInput): string {
  const weeks = input.weeks.slice(-TREND_WEEKS);
  const week = (w: (typeof weeks)[number] | undefined) =>
    w
      ? `week of ${w.week}: average position ${w.averagePosition === null ? 'none' : `#${w.averagePosition.toFixed(1)}`}, ${fmt(w.top3)} in the top 3, ${fmt(w.top10)} in the top 10 of ${fmt(w.ranked)} ranked`
      : '';
  return cut(
    `Chart of the tracked keywords of ${chartLabel(input.clientLabel)} over ${weeks.length} weeks: the average position as a line and the counts in the top 3 and top 10 as bars. Latest ${week(weeks.at(-1))}; first ${week(weeks[0])}. ${moversLine(input.movers)}.`,
  );
}
