import type { Subscription } from '../digests/store.js';
import { context, type KnownBlock, section } from './blocks.js';
import { formatWhen } from './digest-common.js';
import { escapeMrkdwn } from './escape.js';
import { fitMessage } from './limits.js';

/** `digest status` and the digest lines of `status`: each subscription, its filters, its next run, its trouble. */

export interface SubscriptionView {
  sub: Subscription;
  /** The schedule and filters as the digests feature words them (views name a feature's types only). */
  schedule: string;
  filters: string;
  /** The scheduler's next run (ms), once the scheduler role has set it up. */
  next?: number;
}

const title = (kind: string) => (kind === 'reviews' ? 'Reviews' : 'Rankings');

export function digestLine({ sub, next, schedule, filters }: SubscriptionView): string {
  const parts = [`*${title(sub.kind)}* ${escapeMrkdwn(schedule)}`];
  if (filters) parts.push(`filters \`${escapeMrkdwn(filters)}\``);
  if (sub.stopped) {
    parts.push(
      `:no_entry: stopped ${escapeMrkdwn(formatWhen(sub.stopped.at, sub.tz))}: ${escapeMrkdwn(sub.stopped.reason)} (subscribe again to restart it)`,
    );
    return parts.join(' · ');
  }
  parts.push(
    next
      ? `next ${escapeMrkdwn(formatWhen(new Date(next).toISOString(), sub.tz))}`
      : 'next run: being scheduled',
  );
  if (sub.lastPostedAt) parts.push(`last posted ${escapeMrkdwn(formatWhen(sub.lastPostedAt, sub.tz))}`);
  if (sub.failure) {
    parts.push(
      `:warning: last run failed (${escapeMrkdwn(sub.failure.code)}, ${escapeMrkdwn(formatWhen(sub.failure.at, sub.tz))})`,
    );
  }
  return parts.join(' · ');
}

export function buildDigestStatus(views: readonly SubscriptionView[]): {
  text: string;
  blocks: KnownBlock[];
} {
  if (!views.length) {
    const text =
      ':information_source: This channel has no digests. An admin can start one: `/gateway digest rankings weekly mon 09:00 min_change=3`.';
    return fitMessage({ text, blocks: [section(text)] });
  }
  const blocks: KnownBlock[] = [
    section(`*Digests in this channel*\n${views.map(digestLine).join('\n')}`),
    context(
      '`/gateway digest now reviews|rankings` posts one at once; an admin turns one off with `/gateway digest &lt;kind&gt; off`.',
    ),
  ];
  return fitMessage({ text: `Digests in this channel: ${views.length}`, blocks });
}
