import { DelayedError, type Job, UnrecoverableError } from 'bullmq';
import type { BindingStore, ChannelBinding } from '../bindings/index.js';
import type { GatewayClient } from '../gateway/index.js';
import { isGatewayError } from '../gateway/index.js';
import { acquireLease } from '../jobs/index.js';
import type { AppLogger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { Redis } from '../redis/connection.js';
import { slackReplyTarget } from '../slack/reply-target.js';
import type { SlackOutbound } from '../slack/slack-poster.js';
import type { SlackMessage } from '../views/blocks.js';
import {
  buildDigestBaseline,
  buildDigestFailure,
  buildNothingNew,
  type DigestPost,
} from '../views/digest-common.js';
import { buildRankingsDigest } from '../views/digest-rankings.js';
import { buildReviewsDigest } from '../views/digest-reviews.js';
import {
  type DigestChart,
  postDigestChart,
  rankingsDigestChart,
  reviewsDigestChart,
} from './digest-chart.js';
import type { DigestJobData, DigestJobOutcome } from './digest-queue.js';
import { type DigestKind, describeFilters } from './filters.js';
import { type Gathered, gatherDigest } from './gather.js';
import { DigestNowGuard } from './now-guard.js';
import { rankingsChanged } from './rankings.js';
import { periodOf } from './schedule.js';
import { placeInWindow } from './spread.js';
import type { DigestStore, MarkMeta, PendingDigest, Subscription } from './store.js';

/**
 * digests/ owns the digest feature whole: subscriptions and marks, schedule, scheduler, queue, worker, gather,
 * diff, and the run itself (what is news, which Slack errors stop a subscription).
 *
 * One digest run: claim the period (`SET NX`: a doubled run posts nothing), hold the (channel,
 * kind) lease (a `now` and a scheduled run never diff against the same mark at once), gather, render, then
 * advance the mark and store the digest to post in one swap, and post it. A retry after that swap resumes
 * posting where it stopped instead of diffing again, so a digest is never lost nor posted twice.
 */

export interface DigestJobDeps {
  redis: Redis;
  gateway: GatewayClient;
  /** The way out to Slack (slack/slack-poster.ts). */
  outbound: SlackOutbound;
  store: DigestStore;
  bindings: BindingStore;
  /** DIGEST_TZ: dates in digests of subscriptions without their own zone, and of `digest now`. */
  tz: string;
  logger: AppLogger;
  metrics?: Metrics;
  leaseMs?: number;
  /** DIGEST_SPREAD: scheduled daily and weekly runs spread over this window after their due time (spread.ts). */
  spreadMs?: number;
}

export type DigestJob = Job<DigestJobData, DigestJobOutcome>;

/** Slack's answers that mean the bot cannot post in the channel any more: the subscription stops. */
const STOPPING_ERRORS: Record<string, string> = {
  not_in_channel: 'the bot was removed from the channel',
  channel_not_found: 'the channel no longer exists or the bot cannot see it',
  is_archived: 'the channel was archived',
};

function slackError(error: unknown): string | undefined {
  const data = (error as { data?: { error?: unknown } } | undefined)?.data;
  return typeof data?.error === 'string' ? data.error : undefined;
}

/** The run a job belongs to: the claimed period of a scheduled job, the job itself for `now`. */
function runOf(job: DigestJob, sub: Subscription | undefined): string {
  if (job.data.trigger === 'now' || !sub) return `now:${job.id}`;
  return periodOf(sub.schedule, job.opts.prevMillis ?? job.timestamp);
}

function render(gathered: Gathered, input: { clientLabel: string; tz: string; filters: string }): DigestPost {
  const common = {
    clientLabel: input.clientLabel,
    since: gathered.since,
    tz: input.tz,
    filters: input.filters,
  };
  if (gathered.kind === 'reviews' && gathered.diff)
    return buildReviewsDigest({ ...common, diff: gathered.diff });
  if (gathered.kind === 'rankings' && gathered.diff)
    return buildRankingsDigest({ ...common, diff: gathered.diff });
  throw new Error('render: no diff');
}

/** The chart for the thread, from what the digest's own scan summed up (digest-chart.ts). */
function digestChart(
  gathered: Gathered,
  sub: Subscription | undefined,
  client: { clientId: string; clientLabel: string },
): DigestChart | undefined {
  const { clientId, clientLabel } = client;
  if (gathered.kind === 'reviews')
    return reviewsDigestChart(sub, { clientId, clientLabel }, gathered.months, Date.now());
  return gathered.diff
    ? rankingsDigestChart(sub, { clientId, clientLabel }, gathered.weeks, gathered.diff)
    : undefined;
}

function hasNews(gathered: Gathered): boolean {
  if (!gathered.diff) return false;
  if (gathered.kind === 'reviews') return gathered.diff.listed.length > 0;
  return rankingsChanged(gathered.diff);
}

/** Reads what the gateway holds against the mark and renders the digest to post, if there is one. */
async function gatherAndRender(
  deps: DigestJobDeps,
  data: DigestJobData,
  ctx: { sub: Subscription | undefined; binding: ChannelBinding; run: string; tz: string },
): Promise<{ gathered: Gathered; meta: MarkMeta; pending: PendingDigest | undefined; baseline: boolean }> {
  const { sub, binding, run } = ctx;
  const gathered = await gatherDigest(deps.gateway, deps.store, {
    channel: data.channel,
    kind: data.kind,
    clientId: binding.clientId,
    filters: sub?.filters ?? {},
  }).catch((error: unknown) => {
    // A refusal (401, 403, 400) will not pass on retry: fail at once and tell the channel.
    // Its code leads the message: the channel is told the code (publicErrorCode), never the message.
    if (isGatewayError(error) && !error.retryable)
      throw new UnrecoverableError(`${error.code}: ${error.message}`);
    throw error;
  });
  const now = new Date().toISOString();
  const meta: MarkMeta = {
    clientId: binding.clientId,
    since: now,
    baselineAt: gathered.first ? now : gathered.meta?.baselineAt || now,
    rows: gathered.rows,
  };
  if (gathered.first) {
    const summary = buildDigestBaseline({
      kind: data.kind,
      clientLabel: binding.clientLabel,
      tracked: gathered.tracked,
      ...(gathered.kind === 'rankings' ? { census: gathered.census } : {}),
    });
    return { gathered, meta, baseline: true, pending: { run, summary, details: [], repliesPosted: 0 } };
  }
  if (!hasNews(gathered)) return { gathered, meta, baseline: false, pending: undefined };
  const post = render(gathered, {
    clientLabel: binding.clientLabel,
    tz: ctx.tz,
    filters: describeFilters(sub?.filters ?? {}),
  });
  const chart = digestChart(gathered, sub, binding);
  const pending = { run, summary: post.summary, details: post.details, repliesPosted: 0 };
  return { gathered, meta, baseline: false, pending: chart ? { ...pending, chart } : pending };
}

export async function processDigestJob(
  job: DigestJob,
  token: string | undefined,
  deps: DigestJobDeps,
): Promise<DigestJobOutcome> {
  const { channel, kind, trigger } = job.data;
  const log = deps.logger.child({ job: job.id, channel, digest: kind });
  const sub = await deps.store.get(channel, kind);
  if (trigger === 'schedule' && (!sub || sub.stopped)) return { outcome: 'skipped' };
  if (trigger === 'schedule' && sub && deps.spreadMs) {
    // Its slot in the DIGEST_SPREAD window, small clients first (spread.ts): throws DelayedError when moved.
    const lastRows = (await deps.store.meta(channel, kind))?.rows;
    await placeInWindow(job, token, { ...sub, spreadMs: deps.spreadMs, lastRows });
  }
  const run = runOf(job, sub);
  if (trigger === 'schedule' && !(await deps.store.claimPeriod(channel, kind, run, String(job.id)))) {
    log.info(`period ${run} already claimed by another run; nothing posted`);
    return { outcome: 'duplicate' };
  }
  const binding = await deps.bindings.get(channel);
  if (!binding) {
    await stopSubscription(deps, sub, 'the channel is no longer bound to a client');
    return { outcome: 'stopped' };
  }
  const leased = await acquireLease(deps.redis, deps.store.lockKey(channel, kind), deps.leaseMs ?? 120_000);
  if ('heldForMs' in leased) {
    // Another run of this (channel, kind) is diffing: come back when it is done, without spending an attempt.
    await job.moveToDelayed(Date.now() + Math.min(leased.heldForMs, 1_000) + 50, token);
    throw new DelayedError();
  }
  try {
    const tz = sub?.tz ?? deps.tz;
    let pending = await deps.store.pending(channel, kind);
    let outcome: DigestJobOutcome['outcome'] = 'posted';
    if (!pending) {
      const made = await gatherAndRender(deps, job.data, { sub, binding, run, tz });
      pending = made.pending;
      if (made.baseline) outcome = 'baseline';
      await deps.store.advance(channel, kind, made.gathered.mark, made.meta, pending);
      // The scan is done: a new `digest now` is no longer a second one on its way (commands/digest.ts).
      if (trigger === 'now') await releaseNow(deps, job);
      if (!pending) return await nothingNew(deps, job, made.gathered.since, tz);
    }
    await postPending(deps, channel, kind, pending);
    await deps.store.clearPending(channel, kind);
    await deps.store.ran(channel, kind, true);
    deps.metrics?.digestPosted(kind);
    log.info(`${kind} digest ${outcome === 'baseline' ? 'baseline ' : ''}posted (${pending.run})`);
    return { outcome };
  } catch (error) {
    const reason = STOPPING_ERRORS[slackError(error) ?? ''];
    if (!reason) throw error;
    await deps.store.clearPending(channel, kind);
    await stopSubscription(deps, sub, reason);
    log.warn(`digest stopped: ${reason}`);
    return { outcome: 'stopped' };
  } finally {
    await leased.lease.release().catch(() => {});
  }
}

/** Nothing new: a schedule stays silent; the person who asked is told alone. */
async function nothingNew(deps: DigestJobDeps, job: DigestJob, since: string, tz: string) {
  const { channel, kind, trigger, requestedBy } = job.data;
  if (trigger === 'now' && requestedBy)
    await ephemeral(deps, channel, requestedBy, buildNothingNew({ kind, since, tz }));
  await deps.store.ran(channel, kind, false);
  return { outcome: 'nothing' } as const;
}

async function releaseNow(deps: DigestJobDeps, job: DigestJob): Promise<void> {
  await new DigestNowGuard(deps.redis, deps.store.prefix)
    .release(job.data.channel, job.data.kind, String(job.id))
    .catch((e: unknown) => deps.logger.warn('could not release a digest-now claim', e));
}

async function stopSubscription(deps: DigestJobDeps, sub: Subscription | undefined, reason: string) {
  if (sub) await deps.store.stop(sub.channel, sub.kind, reason);
}

/** The summary in the channel, then each detail in its thread; progress is saved after each message. */
async function postPending(
  deps: DigestJobDeps,
  channel: string,
  kind: DigestKind,
  pending: PendingDigest,
): Promise<void> {
  const store = deps.store;
  if (!pending.summaryTs) {
    pending.summaryTs = await deps.outbound.post(slackReplyTarget(channel), pending.summary, {
      // Which run posted it: tools (and the tests) can tell one period's digest from another's.
      metadata: { event_type: 'gateway_digest', event_payload: { kind, run: pending.run } },
    });
    await store.savePending(channel, kind, pending);
  }
  while (pending.repliesPosted < pending.details.length) {
    const detail = pending.details[pending.repliesPosted]!;
    await deps.outbound.post(slackReplyTarget(channel, pending.summaryTs), detail);
    pending.repliesPosted++;
    await store.savePending(channel, kind, pending);
  }
  if (pending.chart && !pending.chartPosted && pending.summaryTs) {
    await postDigestChart(
      { redis: deps.redis, prefix: store.prefix, outbound: deps.outbound, logger: deps.logger },
      channel,
      pending.summaryTs,
      pending.chart,
    );
    pending.chartPosted = true;
    await store.savePending(channel, kind, pending);
  }
}

async function ephemeral(deps: DigestJobDeps, channel: string, user: string, message: SlackMessage) {
  await deps.outbound.ephemeral(slackReplyTarget(channel), user, message);
}

/**
 * A digest job that failed for good. A scheduled one tells its channel once, not every period (the mark has
 * not moved, so the next run that works still reports everything); `now` tells the person who asked.
 */
export async function reportDigestFailure(job: DigestJob, code: string, deps: DigestJobDeps): Promise<void> {
  const { channel, kind, trigger, requestedBy } = job.data;
  const message = buildDigestFailure({ kind, problem: code });
  if (trigger === 'now') {
    if (requestedBy) await ephemeral(deps, channel, requestedBy, message);
    return;
  }
  const sub = await deps.store.get(channel, kind);
  if (!sub || sub.stopped) return;
  if (sub.failure?.told) {
    await deps.store.failed(channel, kind, code, true);
    return;
  }
  await deps.store.failed(channel, kind, code, false);
  await deps.outbound.post(slackReplyTarget(channel), message);
  await deps.store.failed(channel, kind, code, true);
}
