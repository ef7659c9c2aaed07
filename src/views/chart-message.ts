import type { ChartFacts } from '../charts/chart-facts.js';
import type { RankingsTrendInput, RankingsWeek } from '../charts/rankings-trend-chart.js';
import { escapeMrkdwn } from './escape.js';

/**
 * The one line a chart is posted with: what it shows and its main figures, escaped (keyword names and client
 * labels are gateway text). Slack shows it as the message the image belongs to and in notifications.
 */

/** The longest keyword name a summary line shows before cutting it. */
const NAME_MAX = 60;
const LINE_MAX = 600;

const fmt = (n: number) => n.toLocaleString('en-US');
const name = (text: string) =>
  escapeMrkdwn(text.length > NAME_MAX ? `${text.slice(0, NAME_MAX - 1)}…` : text);
const cut = (text: string) => (text.length > LINE_MAX ? `${text.slice(0, LINE_MAX - 1)}…` : text);

function rankingsLine(facts: Extract<ChartFacts, { kind: 'rankings' }>): string {
  const moved = facts.keywords.filter((k) => k.first !== null && k.last !== null);
  const up = moved.filter((k) => (k.last ?? 0) < (k.first ?? 0)).length;
  const down = moved.filter((k) => (k.last ?? 0) > (k.first ?? 0)).length;
  const best = [...moved].sort((a, b) => (a.last ?? 0) - (b.last ?? 0))[0];
  const parts = [
    `:chart_with_upwards_trend: Rankings of ${facts.keywords.length} keyword${facts.keywords.length === 1 ? '' : 's'} for ${escapeMrkdwn(facts.clientLabel)}, ${facts.from} to ${facts.to}`,
    `${up} up, ${down} down, ${moved.length - up - down} level`,
  ];
  if (best) parts.push(`best now *${name(best.keyword)}* #${best.last}`);
  if (facts.missing.length) parts.push(`not tracked: ${facts.missing.map(name).join(', ')}`);
  if (facts.readFrom) parts.push(`positions before ${facts.readFrom} were not read`);
  return parts.join(' · ');
}

function reviewsLine(facts: Extract<ChartFacts, { kind: 'reviews' }>): string {
  const last = [...facts.months].reverse().find((m) => m.average !== null);
  const parts = [
    `:star: Reviews of ${escapeMrkdwn(facts.clientLabel)}, ${facts.months[0]?.month} to ${facts.months.at(-1)?.month}`,
    `${fmt(facts.total)} review${facts.total === 1 ? '' : 's'}${facts.average === null ? '' : `, average ${facts.average.toFixed(1)}★`}`,
  ];
  if (last)
    parts.push(
      `${last.month}: ${fmt(last.counts.reduce((a, b) => a + b, 0))}, average ${last.average?.toFixed(1)}★`,
    );
  if (facts.readFrom) parts.push(`reviews before ${facts.readFrom} were not read`);
  return parts.join(' · ');
}

/** The chart's line; `requestedBy`: the person who asked, named at its end. */
export function buildChartComment(facts: ChartFacts, requestedBy?: string): string {
  const line = cut(facts.kind === 'rankings' ? rankingsLine(facts) : reviewsLine(facts));
  return requestedBy ? `${line} · asked by <@${requestedBy}>` : line;
}

/** The rankings digest's chart line: the latest week against the first drawn, and the movers it names. */
export function buildTrendComment(input: RankingsTrendInput): string {
  const { weeks } = input;
  const first = weeks[0];
  const last = weeks.at(-1);
  const avg = (w: RankingsWeek | undefined) =>
    w?.averagePosition === null || w?.averagePosition === undefined
      ? 'none'
      : `#${w.averagePosition.toFixed(1)}`;
  const parts = [`:chart_with_upwards_trend: Rankings week by week, the last ${weeks.length} weeks`];
  if (last)
    parts.push(
      `average ${avg(last)} (was ${avg(first)}), ${fmt(last.top3)} in the top 3, ${fmt(last.top10)} in the top 10`,
    );
  if (input.movers.length) parts.push(`movers: ${input.movers.slice(0, 5).map(name).join(', ')}`);
  return cut(parts.join(' · '));
}
