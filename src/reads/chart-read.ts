import type { ChartFacts } from '../charts/index.js';
import { ReviewMonths, renderChart, reviewsAltText, reviewsChartSpec } from '../charts/index.js';
import { UserError, UserErrorCode } from '../requests/index.js';
import type { CoreServices } from '../services.js';
import { ChartCache } from '../store/index.js';
import { type ChartKind, type ChartPeriod, chartPeriod } from './chart-period.js';
import { chosenKeywords, drawRankings, type RankingsMeta, requireKeywords } from './rankings-chart-read.js';
import { probeRankings, rankingsOf } from './rankings-read.js';

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

type ChartMeta = RankingsMeta;

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

/**
 * The chart the request asks for, from the cache when the same chart of the same data was drawn today. The cache
 * is keyed on what is drawn: the tracked keywords (an untracked word asked for is left out of the chart and of
 * the key, and named beside it), so words that draw nothing make no new entry. A chart not in the cache counts
 * against the person's CHART_RENDERS; past it they are told so, and cached charts still come.
 */
export async function drawChart(
  services: Services,
  user: string,
  client: Client,
  request: ChartRequest,
  now = Date.now(),
): Promise<Chart> {
  services.access.requireRead(user, request.kind === 'rankings' ? 'keywords' : 'reviews');
  const asked = chartPeriod(request.kind, request, now, CHART_USAGE);
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
  const draw = new CachedDraw(services, user, client, request.kind, now, [
    period,
    version.version,
    client.clientLabel,
  ]);
  if (request.kind === 'reviews') return draw.chart(null, () => drawReviews(services, client, period));
  // Keywords asked for that are all tracked key the chart as drawn: a hit reads nothing more.
  const guess = [...new Set(request.keywords.map((k) => k.toLowerCase()))];
  const hit = await draw.cached(guess.length ? guess : null);
  if (hit) return hit;
  const rankings = await rankingsOf(services.gateway, client.clientId, undefined, version);
  const chosen = chosenKeywords(rankings, request.keywords);
  requireKeywords(client, rankings, chosen, CHART_USAGE);
  const shown = guess.length ? chosen.keywords.map((k) => k.toLowerCase()) : null;
  const chart = await draw.chart(shown, () =>
    drawRankings(services.gateway, client, rankings, chosen.keywords, period),
  );
  if (chart.meta.facts.kind !== 'rankings' || chosen.missing.length === 0) return chart;
  const facts = { ...chart.meta.facts, missing: chosen.missing };
  return { ...chart, meta: { ...chart.meta, facts } };
}

/** One chart's way through the cache: looked up by what it draws, rendered within the person's allowance. */
class CachedDraw {
  private readonly cache: ChartCache;
  constructor(
    private readonly services: Services,
    private readonly user: string,
    private readonly client: Client,
    private readonly kind: ChartKind,
    private readonly now: number,
    private readonly shape: unknown[],
  ) {
    this.cache = new ChartCache(
      services.redis,
      services.config.redis.prefix,
      services.config.charts.cacheBytes,
    );
  }

  /** `drawn`: the keywords drawn, lower-cased; null for the default ones (or none, for reviews). */
  private key(drawn: readonly string[] | null) {
    const day = new Date(this.now).toISOString().slice(0, 10);
    return { clientId: this.client.clientId, kind: this.kind, day, shape: [drawn, ...this.shape] };
  }

  async cached(drawn: readonly string[] | null): Promise<Chart | undefined> {
    const hit = await this.cache.get<ChartMeta>(this.key(drawn));
    return hit ? { ...hit, cached: true } : undefined;
  }

  async chart(
    drawn: readonly string[] | null,
    render: () => Promise<{ png: Buffer; meta: ChartMeta }>,
  ): Promise<Chart> {
    const hit = await this.cached(drawn);
    if (hit) return hit;
    const rate = this.services.config.charts.renders;
    const allowed = await this.cache.takeRender(this.user, rate, this.now);
    if (!allowed.ok) {
      const minutes = Math.ceil(allowed.retryAfterSec / 60);
      throw new UserError(
        UserErrorCode.TooSoon,
        `You have drawn ${rate.max} new charts in ${windowWords(rate.windowMs)}, the most one person may.`,
        {
          hint: `A chart already drawn today still comes at once; a new one can be drawn in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
        },
      );
    }
    const rendered = await render();
    await this.cache.set(this.key(drawn), rendered, this.now);
    return { ...rendered, cached: false };
  }
}

const windowWords = (ms: number) =>
  ms % 3_600_000 === 0
    ? `${ms / 3_600_000 === 1 ? 'an hour' : `${ms / 3_600_000} hours`}`
    : `${Math.max(1, Math.round(ms / 60_000))} minute${Math.round(ms / 60_000) === 1 ? '' : 's'}`;

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
  period: ChartPeriod,
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
