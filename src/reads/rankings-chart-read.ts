import type { ChartFacts, KeywordSeries } from '../charts/index.js';
import {
  firstAndLast,
  MAX_CHART_KEYWORDS,
  rankingsAltText,
  rankingsChartSpec,
  renderChart,
} from '../charts/index.js';
import type { GatewayClient, Row } from '../gateway/index.js';
import { UserError, UserErrorCode } from '../requests/index.js';
import type { ChartPeriod } from './chart-period.js';
import { closestName } from './closest-name.js';
import { KeywordHistory } from './keyword-history.js';
import type { Rankings } from './rankings-read.js';

/**
 * The rankings chart: which keywords it draws (the tracked ones asked for, or the 10 with the most volume), and
 * their positions over the period, from the rankings read's rows and, where those stop short of the period's
 * start, from older rows read on (newest first) for the drawn keywords alone until the start is reached.
 */

/** Keyword rows one chart reads at most, the rankings read's included: the gateway client's own scan cap. */
const CHART_SCAN_ROWS = 250_000;

export interface RankingsMeta {
  facts: ChartFacts;
  altText: string;
  title: string;
  filename: string;
}

type Client = { clientId: string; clientLabel: string };
type Gateway = Pick<GatewayClient, 'rows'>;

/** The keywords to draw: those asked for (as the gateway spells them), or the 10 tracked with the most volume. */
export function chosenKeywords(
  rankings: Rankings,
  asked: readonly string[],
): { keywords: string[]; missing: string[] } {
  if (asked.length > 0) {
    const keywords: string[] = [];
    const missing: string[] = [];
    for (const word of asked) {
      const found = rankings.history.find(word);
      if (found === undefined) missing.push(word);
      else if (!keywords.includes(found)) keywords.push(found);
    }
    return { keywords: keywords.slice(0, MAX_CHART_KEYWORDS), missing };
  }
  const volume = (r: Row) => (typeof r.search_volume === 'number' ? r.search_volume : -1);
  const tracked = rankings.ranked.filter((r) => r.status === undefined && typeof r.keyword === 'string');
  const keywords = [...tracked]
    .sort((a, b) => volume(b) - volume(a))
    .slice(0, MAX_CHART_KEYWORDS)
    .map((r) => String(r.keyword));
  return { keywords, missing: [] };
}

/** Refuses a chart of nothing: no keyword asked for is tracked (with the nearest one it might have meant). */
export function requireKeywords(
  client: Client,
  rankings: Rankings,
  chosen: { keywords: string[]; missing: string[] },
  usage: string,
): void {
  if (chosen.keywords.length > 0) return;
  const first = chosen.missing[0];
  const guess = first ? closestName(first, [...rankings.ranked.map((r) => String(r.keyword))]) : undefined;
  throw new UserError(UserErrorCode.BadArguments, `${client.clientLabel} tracks none of those keywords.`, {
    usage,
    hint: guess ? `Did you mean “${guess}”? Quote a keyword with spaces.` : '`/gateway keywords` lists them.',
  });
}

/**
 * The drawn keywords' rows older than the rankings read's, newest first, until the period's start; `oldest` is
 * where the walk stopped when the cap cut it short of `from` ('' when it reached `from` or the data's start).
 */
async function olderRows(
  gateway: Gateway,
  clientId: string,
  rankings: Rankings,
  keywords: readonly string[],
  from: string,
): Promise<{ rows: Row[]; cutAt: string }> {
  const wanted = new Set(keywords);
  const rows: Row[] = [];
  const maxRows = CHART_SCAN_ROWS - rankings.read;
  let read = 0;
  let oldest = '';
  const walk = gateway.rows('keywords', {
    clientId,
    order: 'tracked_at',
    direction: 'desc',
    offset: rankings.read,
    maxRows,
  });
  for await (const row of walk) {
    read++;
    const when = row.tracked_at ?? row.created_at;
    const date = typeof when === 'string' ? when.slice(0, 10) : '';
    if (date && date < from) return { rows, cutAt: '' };
    if (date) oldest = date;
    if (typeof row.keyword === 'string' && wanted.has(row.keyword)) rows.push(row);
  }
  return { rows, cutAt: read >= maxRows ? oldest : '' };
}

/** Two series of one keyword as one, one point a date: a position beats none. */
function merged(a: KeywordSeries, b: KeywordSeries): KeywordSeries {
  const byDate = new Map(b.points.map((p) => [p.date, p.position]));
  for (const p of a.points)
    if (!byDate.has(p.date) || byDate.get(p.date) === null) byDate.set(p.date, p.position);
  const points = [...byDate]
    .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))
    .map(([date, position]) => ({ date, position }));
  return { keyword: a.keyword, points };
}

/** The drawn keywords' positions in the period, reading on past the rankings read where it stopped short. */
async function seriesOf(
  gateway: Gateway,
  clientId: string,
  rankings: Rankings,
  keywords: readonly string[],
  period: ChartPeriod,
): Promise<{ series: KeywordSeries[]; readFrom: string }> {
  const recent = keywords.map((k) => rankings.history.series(k, period.from, period.to));
  const { oldest } = rankings.history.span;
  if (!rankings.truncated || !oldest || oldest <= period.from) return { series: recent, readFrom: '' };
  const older = await olderRows(gateway, clientId, rankings, keywords, period.from);
  const history = new KeywordHistory(older.rows);
  const series = recent.map((s) => merged(s, history.series(s.keyword, period.from, period.to)));
  return { series, readFrom: older.cutAt };
}

function nothingInPeriod(rankings: Rankings, period: ChartPeriod): UserError {
  const { oldest, newest } = rankings.history.span;
  return new UserError(
    UserErrorCode.NothingToChart,
    `Nothing to chart yet: no positions were tracked from ${period.from} to ${period.to}.`,
    {
      hint: newest
        ? `Tracked positions run from ${oldest} to ${newest}: try \`from=${oldest}\`.`
        : 'Try another period.',
    },
  );
}

/**
 * The chart of `keywords` over the period. Where the read was cut short of `from`, the chart, its title, line
 * and alt text say the period actually drawn (from the oldest date read), and the note says why.
 */
export async function drawRankings(
  gateway: Gateway,
  client: Client,
  rankings: Rankings,
  keywords: readonly string[],
  period: ChartPeriod,
): Promise<{ png: Buffer; meta: RankingsMeta }> {
  const { series, readFrom } = await seriesOf(gateway, client.clientId, rankings, keywords, period);
  if (series.every((s) => s.points.length === 0)) throw nothingInPeriod(rankings, period);
  // Dates as YYYY-MM-DD strings: sorted as text, in date order. The chart starts where the data does.
  const first = series.map((s) => s.points[0]?.date ?? period.to).sort()[0] ?? period.to;
  const start = [first, period.from].sort()[1] ?? period.from;
  const drawn = readFrom ? { from: readFrom, to: period.to } : period;
  const input = {
    clientLabel: client.clientLabel,
    from: start,
    to: period.to,
    series,
    ...(readFrom ? { note: `positions before ${readFrom} were not read` } : {}),
  };
  const png = await renderChart(rankingsChartSpec(input));
  const facts: ChartFacts = {
    kind: 'rankings',
    clientLabel: client.clientLabel,
    ...drawn,
    keywords: series.map((s) => ({ keyword: s.keyword, ...firstAndLast(s.points), points: s.points })),
    missing: [],
    ...(readFrom ? { readFrom } : {}),
  };
  return {
    png,
    meta: {
      facts,
      altText: rankingsAltText(input),
      title: `Rankings of ${client.clientLabel}, ${drawn.from} to ${drawn.to}`,
      filename: `rankings-${drawn.from}-${drawn.to}.png`,
    },
  };
}
