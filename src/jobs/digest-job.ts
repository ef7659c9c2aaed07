import type { WebClient } from '@slack/web-api';
import { DelayedError, type Job, UnrecoverableError } from 'bullmq';
import { type DigestKind, describeFilters } from '../digests/filters.js';
import { type Gathered, gatherDigest } from '../digests/gather.js';
import { rankingsChanged } from '../digests/rankings.js';
import { periodOf } from '../digests/schedule.js';
import type { DigestStore, PendingDigest, Subscription } from '../digests/store.js';
import type { GatewayClient } from '../gateway/client.js';
import { isGatewayError } from '../gateway/errors.js';
import type { AppLogger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { Redis } from '../redis.js';
import type { BindingStore } from '../store/bindings.js';
import {
  buildDigestBaseline,
  buildDigestFailure,
  buildNothingNew,
  type DigestPost,
} from '../views/digest-common.js';
import { buildRankingsDigest } from '../views/digest-rankings.js';
import { buildReviewsDigest } from '../views/digest-reviews.js';
import type { DigestJobData, DigestJobOutcome } from './digest-queue.js';
import { acquireLease } from './lease.js';

/**
 * One digest run (issue 10): claim the period (`SET NX`: a doubled run posts nothing), hold the (channel,
 * kind) lease (a `now` and a scheduled run never diff against the same mark at once), gather, render, then
 * advance the mark and store the digest to post in one swap, and post it. A retry after that swap resumes
 * posting where it stopped instead of diffing again, so a digest is never lost nor posted twice.
 */

export interface DigestJobDeps {
  redis: Redis;
  gateway: GatewayClient;
  slack: WebClient;
  store: DigestStore;
  bindings: BindingStore;
  /** DIGEST_TZ: dates in digests of subscriptions without their own zone, and of `digest now`. */
  tz: string;
  logger: AppLogger;
  metrics?: Metrics;
  leaseMs?: number;
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

function hasNews(gathered: Gathered): boolean {
  if (!gathered.diff) return false;
  if (gathered.kind === 'reviews') return gathered.diff.listed.length > 0;
  return rankingsChanged(gathered.diff);
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
      const gathered = await gatherDigest(deps.gateway, deps.store, {
        channel,
        kind,
        clientId: binding.clientId,
        filters: sub?.filters ?? {},
      }).catch((error: unknown) => {
        // A refusal (401, 403, 400) will not pass on retry: fail at once and tell the channel.
        if (isGatewayError(error) && !error.retryable) throw new UnrecoverableError(error.message);
        throw error;
      });
      const now = new Date().toISOString();
      const meta = { clientId: binding.clientId, since: now, baselineAt: gathered.meta?.baselineAt || now };
      if (gathered.first) {
        outcome = 'baseline';
        pending = {
          run,
          summary: buildDigestBaseline({
            kind,
            clientLabel: binding.clientLabel,
            tracked: gathered.tracked,
            ...(gathered.kind === 'rankings' ? { census: gathered.census } : {}),
          }),
          details: [],
          repliesPosted: 0,
        };
        meta.baselineAt = now;
      } else if (hasNews(gathered)) {
        const post = render(gathered, {
          clientLabel: binding.clientLabel,
          tz,
          filters: describeFilters(sub?.filters ?? {}),
        });
        pending = { run, summary: post.summary, details: post.details, repliesPosted: 0 };
      }
      await deps.store.advance(channel, kind, gathered.mark, meta, pending);
      if (!pending) {
        // Nothing new: a schedule stays silent; the person who asked is told alone.
        if (trigger === 'now' && job.data.requestedBy) {
          await ephemeral(
            deps,
            channel,
            job.data.requestedBy,
            buildNothingNew({ kind, since: gathered.since, tz }),
          );
        }
        await deps.store.ran(channel, kind, false);
        return { outcome: 'nothing' };
      }
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
    const answer = await deps.slack.chat.postMessage({
      channel,
      text: pending.summary.text,
      blocks: pending.summary.blocks as never,
      // Which run posted it: tools (and the tests) can tell one period's digest from another's.
      metadata: { event_type: 'gateway_digest', event_payload: { kind, run: pending.run } },
    });
    pending.summaryTs = String(answer.ts ?? '');
    await store.savePending(channel, kind, pending);
  }
  while (pending.repliesPosted < pending.details.length) {
    const detail = pending.details[pending.repliesPosted]!;
    await deps.slack.chat.postMessage({
      channel,
      thread_ts: pending.summaryTs,
      text: detail.text,
      blocks: detail.blocks as never,
    });
    pending.repliesPosted++;
    await store.savePending(channel, kind, pending);
  }
}

async function ephemeral(
  deps: DigestJobDeps,
  channel: string,
  user: string,
  message: { text: string; blocks: unknown[] },
): Promise<void> {
  await deps.slack.chat.postEphemeral({ channel, user, text: message.text, blocks: message.blocks as never });
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
  await deps.slack.chat.postMessage({ channel, text: message.text, blocks: message.blocks as never });
  await deps.store.failed(channel, kind, code, true);
}
