import type { ReviewMonth, ReviewMonths } from '../charts/index.js';
import {
  type RankingsWeek,
  rankingsTrendAltText,
  rankingsTrendSpec,
  renderChart,
  reviewsAltText,
  reviewsChartSpec,
  TREND_WEEKS,
} from '../charts/index.js';
import type { AppLogger } from '../logger.js';
import type { Redis } from '../redis/connection.js';
import { slackReplyTarget } from '../slack/reply-target.js';
import type { SlackOutbound } from '../slack/slack-poster.js';
import { ChartCache } from '../store/index.js';
import { buildChartComment, buildTrendComment } from '../views/chart-message.js';
import type { RankingDiff } from './rankings.js';
import type { Schedule } from './schedule.js';

/**
 * The chart a digest carries in its thread, after its text (which stays as it is: the chart is extra). It is
 * drawn from what the digest's own scan read, kept with the pending digest as data (a few numbers), so a run
 * that resumes after a failure draws the same chart; the image is kept per client, kind and day like every chart.
 */

export type DigestChart =
  | {
      kind: 'reviews';
      clientId: string;
      clientLabel: string;
      from: string;
      to: string;
      months: ReviewMonth[];
    }
  | {
      kind: 'rankings-trend';
      clientId: string;
      clientLabel: string;
      /** Oldest first, the last 12 weeks (rankings-trend-chart.ts). */
      weeks: RankingsWeek[];
      movers: string[];
    };

/** Months a reviews digest's chart shows: this one and the 11 before. */
const REVIEW_MONTHS = 12;
/** Keywords the rankings chart's subtitle may name (it names the first few and counts the rest). */
const MOVERS_KEPT = 10;

/** Only a weekly digest carries a chart: a daily one would post nearly the same picture every day. */
const charted = (sub: { schedule: Schedule } | undefined) => sub?.schedule.kind === 'weekly';

/** The reviews chart of a weekly reviews digest, from the months its scan counted; none for a daily one. */
export function reviewsDigestChart(
  sub: { schedule: Schedule } | undefined,
  client: { clientId: string; clientLabel: string },
  months: ReviewMonths,
  now: number,
): DigestChart | undefined {
  if (!charted(sub)) return undefined;
  const today = new Date(now);
  const to = today.toISOString().slice(0, 10);
  const from = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - (REVIEW_MONTHS - 1), 1))
    .toISOString()
    .slice(0, 10);
  const counted = months.between(from, to);
  if (counted.every((m) => m.average === null)) return undefined;
  return { kind: 'reviews', ...client, from, to, months: counted };
}

/**
 * The rankings trend chart of a weekly rankings digest: the weeks its scan summed as it paged (gather.ts) and the
 * keywords that moved most (those that fell out of the top 10 and the movers, by the digest's own weight).
 */
export function rankingsDigestChart(
  sub: { schedule: Schedule } | undefined,
  client: { clientId: string; clientLabel: string },
  weeks: RankingsWeek[],
  diff: Pick<RankingDiff, 'moved' | 'fellOut'>,
): DigestChart | undefined {
  if (!charted(sub) || weeks.every((w) => w.averagePosition === null)) return undefined;
  const movers = [...diff.fellOut, ...diff.moved]
    .sort((a, b) => b.weight - a.weight || a.keyword.localeCompare(b.keyword))
    .slice(0, MOVERS_KEPT)
    .map((m) => m.keyword);
  return { kind: 'rankings-trend', ...client, weeks: weeks.slice(-TREND_WEEKS), movers };
}

interface Drawn {
  png: Buffer;
  altText: string;
  title: string;
  filename: string;
  comment: string;
}

async function draw(chart: DigestChart): Promise<Drawn> {
  if (chart.kind === 'reviews') {
    const input = { clientLabel: chart.clientLabel, months: chart.months };
    const total = chart.months.reduce((sum, m) => sum + m.counts.reduce((a, b) => a + b, 0), 0);
    const stars = chart.months.reduce((sum, m) => sum + m.counts.reduce((a, n, i) => a + n * (i + 1), 0), 0);
    return {
      png: await renderChart(reviewsChartSpec(input)),
      altText: reviewsAltText(input),
      title: `Reviews of ${chart.clientLabel} by month`,
      filename: `reviews-${chart.from}-${chart.to}.png`,
      comment: buildChartComment({
        kind: 'reviews',
        clientLabel: chart.clientLabel,
        from: chart.from,
        to: chart.to,
        months: chart.months,
        total,
        average: total ? Math.round((stars / total) * 100) / 100 : null,
      }),
    };
  }
  const input = {
    clientLabel: chart.clientLabel,
    weeks: chart.weeks.slice(-TREND_WEEKS),
    movers: chart.movers,
  };
  return {
    png: await renderChart(rankingsTrendSpec(input)),
    altText: rankingsTrendAltText(input),
    title: `Rankings of ${chart.clientLabel}, week by week`,
    filename: `rankings-weekly-${chart.weeks.at(-1)?.week ?? 'none'}.png`,
    comment: buildTrendComment(input),
  };
}

export interface DigestChartDeps {
  redis: Redis;
  prefix: string;
  outbound: SlackOutbound;
  logger: AppLogger;
}

/**
 * Draws the chart (or takes today's from the cache) and uploads it into the digest's thread. A chart that cannot
 * be drawn or sent is logged and left out: the digest's text has been posted, and it is what counts.
 */
export async function postDigestChart(
  deps: DigestChartDeps,
  channel: string,
  threadTs: string,
  chart: DigestChart,
  now = Date.now(),
): Promise<boolean> {
  try {
    const cache = new ChartCache(deps.redis, deps.prefix);
    const key = {
      clientId: chart.clientId,
      kind: `digest-${chart.kind}`,
      day: new Date(now).toISOString().slice(0, 10),
      shape: chart,
    };
    const drawn = (await cache.get<Omit<Drawn, 'png'>>(key)) ?? undefined;
    const image = drawn ? { png: drawn.png, ...drawn.meta } : await draw(chart);
    if (!drawn) {
      const { png, ...meta } = image;
      await cache.set(key, { png, meta });
    }
    await deps.outbound.uploadFile(
      slackReplyTarget(channel, threadTs),
      { bytes: image.png, filename: image.filename, title: image.title, altText: image.altText },
      image.comment,
    );
    return true;
  } catch (error) {
    deps.logger.warn(
      `the digest's ${chart.kind} chart could not be posted; the digest went out without it`,
      error,
    );
    return false;
  }
}
