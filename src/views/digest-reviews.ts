import type { ReviewDiff } from '../digests/reviews.js';
import { context, type KnownBlock, section } from './blocks.js';
import { count, type DigestPost, formatWhen, listMessage, plural } from './digest-common.js';
import { escapeMrkdwn } from './escape.js';
import { fitMessage } from './limits.js';

/** The reviews digest: counts and the worst first in the channel; the new reviews the filters let through in the thread. */

const stars = (rating: number | undefined) =>
  rating === undefined
    ? 'unrated'
    : `${'★'.repeat(Math.max(0, Math.min(5, Math.round(rating))))}${'☆'.repeat(Math.max(0, 5 - Math.round(rating)))}`;

const SENTIMENT_ORDER = ['negative', 'neutral', 'positive'];
const LEAD_MAX = 3;
const THREAD_MAX = 100;

function reviewLine(r: ReviewDiff['listed'][number]): string {
  const snippet = r.text ? ` “${escapeMrkdwn(r.text)}”` : '';
  return `${stars(r.rating)} *${escapeMrkdwn(r.author)}* · ${escapeMrkdwn(formatWhen(r.createdAt))}${snippet}`;
}

export function buildReviewsDigest(input: {
  clientLabel: string;
  since: string;
  tz: string;
  diff: ReviewDiff;
  filters: string;
}): DigestPost {
  const { diff } = input;
  const label = escapeMrkdwn(input.clientLabel);
  const sentiments = Object.keys(diff.bySentiment).sort(
    (a, b) => (SENTIMENT_ORDER.indexOf(a) + 1 || 9) - (SENTIMENT_ORDER.indexOf(b) + 1 || 9),
  );
  const counts = sentiments.map((s) => `${count(diff.bySentiment[s] ?? 0)} ${escapeMrkdwn(s)}`).join(' · ');
  const average = diff.averageRating === undefined ? '' : ` · average ${diff.averageRating.toFixed(1)}★`;
  const head = `:star: *Reviews for ${label}*: ${plural(diff.listed.length, 'new review')} since ${escapeMrkdwn(formatWhen(input.since, input.tz))}\n${counts}${average}`;
  const blocks: KnownBlock[] = [section(head)];
  const alarming = diff.listed.slice(0, diff.alarming);
  if (alarming.length) {
    const lead = alarming.slice(0, LEAD_MAX).map(reviewLine).join('\n');
    const more =
      alarming.length > LEAD_MAX ? `\n…and ${count(alarming.length - LEAD_MAX)} more in the thread` : '';
    blocks.unshift(
      section(`🚨 *${plural(alarming.length, 'new 1- or 2-star review')} to answer*\n${lead}${more}`),
    );
  }
  // "Every new review" only when it is so: filters that leave some out make the thread a selection.
  const notes = [
    diff.filteredOut
      ? `The thread lists the ${plural(diff.listed.length, 'new review')} the filters let through (${plural(diff.filteredOut, 'other new review')} left out by the filters).`
      : 'Every new review is in the thread.',
  ];
  if (input.filters) notes.push(`Filters: \`${input.filters}\` (1- and 2-star reviews always show).`);
  blocks.push(context(notes.join(' ')));
  const text = `Reviews for ${label}: ${plural(diff.listed.length, 'new review')}${alarming.length ? `, ${count(alarming.length)} with 1 or 2 stars` : ''}`;
  const detail = listMessage(
    `*New reviews, lowest rating first* (${count(diff.listed.length)})`,
    diff.listed,
    reviewLine,
    {
      maxLines: THREAD_MAX,
      more: (n) => `…and ${count(n)} more. \`/gateway reviews\` lists every review.`,
    },
  );
  return { summary: fitMessage({ text, blocks }), details: [detail] };
}
