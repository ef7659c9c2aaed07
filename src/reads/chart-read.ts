import type { ChartFacts } from '../charts/index.js';
import {
  firstAndLast,
  MAX_CHART_KEYWORDS,
  ReviewMonths,
  rankingsAltText,
  rankingsChartSpec,
  renderChart,
  reviewsAltText,
  reviewsChartSpec,
} from '../charts/index.js';
import type { Row } from '../gateway/index.js';
import { UserError, UserErrorCode } from '../requests/index.js';
import type { CoreServices } from '../services.js';
import { ChartCache } from '../store/index.js';
import { type ChartKind, chartPeriod } from './chart-period.js';
import { closestName } from './closest-name.js';
import { probeRankings, type Rankings, rankingsOf } from './rankings-read.js';

/**
 * A chart of a client's data, for a person in Slack or an assistant: checked as a read of the resource it
 * draws, read through the rankings read the rankings view shares (or one bounded walk of the newest reviews),
 * rendered once, and kept per client, kind and day in Redis (chart-cache.ts) while the data stays the same.
 */

export type { ChartKind } from './chart-period.js';

export interface ChartRequest {
  kind: ChartKind;
  /** Rankings: the keywords to draw (at most 10); none: the 10 with the highest search volume. */
  keywords: readonly string[];
  from?: string | undefined;
  to?: string | undefined;
}

interface ChartMeta {
  facts: ChartFacts;
  altText: string;
  title: string;
  filename: string;
}

export interface Chart {
  png: Buffer;
  meta: ChartMeta;
  /** Taken from the cache: nothing was read or rendered. */
  cached: boolean;
}

type Services = Pick<CoreServices, 'gateway' | 'access' | 'redis' | 'config'>;
type Client = { clientId: string; clientLabel: string };

/** Reviews read for one chart at most: three years of a busy client. */
const REVIEW_ROWS = 50_000;

export const CHART_USAGE = '/gateway chart rankings|reviews [keyword …] [from=YYYY-MM-DD] [to=YYYY-MM-DD]';

const nothingYet = (what: string, hint: string) =>
  new UserError(UserErrorCode.NothingToChart, `Nothing to chart yet: ${what}.`, { hint });

/** The chart the request asks for, from the cache when the same chart of the same data was drawn today. */
export async function drawChart(
  services: Services,
  user: string,
  client: Client,
  request: ChartRequest,
  now = Date.now(),
): Promise<Chart> {
  services.access.requireRead(user, request.kind === 'rankings' ? 'keywords' : 'reviews');
  const asked = chartPeriod(request.kind, request, now, CHART_USAGE);
  const cache = new ChartCache(services.redis, services.config.redis.prefix);
  const version =
    request.kind === 'rankings'
      ? await probeRankings(services.gateway, client.clientId)
      : await probeReviews(services, client.clientId);
  // Without `to=`, the period ends at the newest data when the gateway's clock runs ahead of ours.
  const period = !request.to && version.newest > asked.to ? { ...asked, to: version.newest } : asked;
  if (version.total === 0) {
    throw nothingYet(
      `${client.clientLabel} has no ${request.kind === 'rankings' ? 'keyword rankings' : 'reviews'} at the gateway`,
      request.kind === 'rankings'
        ? 'A chart appears once the gateway tracks positions for its keywords.'
        : 'A chart appears once the client has reviews.',
    );
  }
  const key = {
    clientId: client.clientId,
    kind: request.kind,
    day: new Date(now).toISOString().slice(0, 10),
    shape: [request.keywords.map((k) => k.toLowerCase()), period, version.version, client.clientLabel],
  };
  const hit = await cache.get<ChartMeta>(key);
  if (hit) return { ...hit, cached: true };
  const drawn =
    request.kind === 'rankings'
      ? await drawRankings(
          client,
          await rankingsOf(services.gateway, client.clientId, undefined, version),
          request.keywords,
          period,
        )
      : await drawReviews(services, client, period);
  await cache.set(key, drawn);
  return { ...drawn, cached: false };
}

/** The keywords to draw: those asked for (as the gateway spells them), or the 10 tracked with the most volume. */
function chosenKeywords(
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

/** The series to draw: the asked keywords (or the default ones) that have positions in the period. */
function seriesToDraw(
  client: Client,
  rankings: Rankings,
  asked: readonly string[],
  period: { from: string; to: string },
) {
  const { keywords, missing } = chosenKeywords(rankings, asked);
  if (keywords.length === 0) {
    const guess = missing[0]
      ? closestName(missing[0], [...rankings.ranked.map((r) => String(r.keyword))])
      : undefined;
    throw new UserError(UserErrorCode.BadArguments, `${client.clientLabel} tracks none of those keywords.`, {
      usage: CHART_USAGE,
      hint: guess
        ? `Did you mean “${guess}”? Quote a keyword with spaces.`
        : '`/gateway keywords` lists them.',
    });
  }
  const series = keywords.map((k) => rankings.history.series(k, period.from, period.to));
  if (series.every((s) => s.points.length === 0)) {
    const { oldest, newest } = rankings.history.span;
    throw nothingYet(
      `no positions were tracked from ${period.from} to ${period.to}`,
      newest
        ? `Tracked positions run from ${oldest} to ${newest}: try \`from=${oldest}\`.`
        : 'Try another period.',
    );
  }
  return { series, missing };
}

async function drawRankings(
  client: Client,
  rankings: Rankings,
  asked: readonly string[],
  period: { from: string; to: string },
): Promise<{ png: Buffer; meta: ChartMeta }> {
  const { series, missing } = seriesToDraw(client, rankings, asked, period);
  // The chart starts where the data does: the first position in the period, or where the read stopped short
  // of `from` (the newest rows of a large client), which the chart then says.
  const { oldest } = rankings.history.span;
  const cut = rankings.truncated && oldest > period.from;
  // Dates as YYYY-MM-DD strings: sorted as text, in date order.
  const first = series.map((s) => s.points[0]?.date ?? period.to).sort()[0] ?? period.to;
  const start = [first, period.from].sort()[1] ?? period.from;
  const input = {
    clientLabel: client.clientLabel,
    from: start,
    to: period.to,
    series,
    ...(cut ? { note: `positions before ${oldest} were not read` } : {}),
  };
  const png = await renderChart(rankingsChartSpec(input));
  const facts: ChartFacts = {
    kind: 'rankings',
    clientLabel: client.clientLabel,
    ...period,
    keywords: series.map((s) => ({ keyword: s.keyword, ...firstAndLast(s.points), points: s.points })),
    missing,
    ...(cut ? { readFrom: oldest } : {}),
  };
  return {
    png,
    meta: {
      facts,
      altText: rankingsAltText(input),
      title: `Rankings of ${client.clientLabel}, ${period.from} to ${period.to}`,
      filename: `rankings-${period.from}-${period.to}.png`,
    },
  };
}

/** What the gateway's newest review and review count are now: the version a cached chart was drawn from. */
async function probeReviews(
  services: Services,
  clientId: string,
): Promise<{ version: string; total: number; newest: string }> {
  const page = await services.gateway.read('reviews', {
    clientId,
    order: 'created_at',
    direction: 'desc',
    limit: 1,
  });
  const newest = page.data[0];
  return {
    version: JSON.stringify([page.pagination.total, newest?.id, newest?.created_at]),
    total: page.pagination.total,
    newest: typeof newest?.created_at === 'string' ? newest.created_at.slice(0, 10) : '',
  };
}

/** The reviews of the period, newest first, folded into months as they stream past; the walk stops at `from`. */
async function drawReviews(
  services: Services,
  client: Client,
  period: { from: string; to: string },
): Promise<{ png: Buffer; meta: ChartMeta }> {
  const months = new ReviewMonths();
  const after = `${period.to}\uffff`;
  let read = 0;
  let oldest = '';
  const rows = services.gateway.rows('reviews', {
    clientId: client.clientId,
    order: 'created_at',
    direction: 'desc',
    maxRows: REVIEW_ROWS,
  });
  for await (const row of rows) {
    read++;
    const when = typeof row.created_at === 'string' ? row.created_at : '';
    if (when && when < period.from) break;
    if (when) oldest = when;
    if (when < after) months.add(row);
  }
  const byMonth = months.between(period.from, period.to);
  const total = byMonth.reduce((sum, m) => sum + m.counts.reduce((a, b) => a + b, 0), 0);
  if (total === 0)
    throw nothingYet(
      `${client.clientLabel} has no rated review from ${period.from} to ${period.to}`,
      'Try a longer period with `from=`.',
    );
  const input = { clientLabel: client.clientLabel, months: byMonth };
  const png = await renderChart(reviewsChartSpec(input));
  const sum = byMonth.reduce((acc, m) => acc + m.counts.reduce((a, n, i) => a + n * (i + 1), 0), 0);
  const facts: ChartFacts = {
    kind: 'reviews',
    clientLabel: client.clientLabel,
    ...period,
    months: byMonth,
    total,
    average: Math.round((sum / total) * 100) / 100,
    ...(read >= REVIEW_ROWS && oldest > period.from ? { readFrom: oldest.slice(0, 10) } : {}),
  };
  return {
    png,
    meta: {
      facts,
      altText: reviewsAltText(input),
      title: `Reviews of ${client.clientLabel}, ${byMonth[0]?.month} to ${byMonth.at(-1)?.month}`,
      filename: `reviews-${period.from}-${period.to}.png`,
    },
  };
}
