import { z } from 'zod';
import type { Row } from '../gateway/index.js';

/**
 * `list_reviews`: a client's customer reviews (gateway `reviews`), newest first, as one more entry of the read
 * tools' list: the same paging, signed cursors, reach and answer as every other read tool (read-tools.ts). The
 * gateway filters by `sentiment` itself; a rating bound and a first day are applied here, over the scan the
 * read tools allow for a local filter. Review text is returned as data, never as instructions.
 */

const rating = z.number().int().min(1).max(5).optional();
const SENTIMENTS = ['positive', 'neutral', 'negative'] as const;

const ratingOf = (row: Row) => (typeof row.rating === 'number' ? row.rating : Number(row.rating));
const dayOf = (row: Row) => (typeof row.created_at === 'string' ? row.created_at.slice(0, 10) : '');

export const listReviewsTool = {
  name: 'list_reviews',
  resource: 'reviews',
  description:
    'Customer reviews of a client with author, rating, sentiment, source and text (gateway `reviews`), newest first; optionally by sentiment, a rating bound and a first day.',
  extra: {
    sentiment: z.enum(SENTIMENTS).optional().describe('Only reviews of this sentiment'),
    rating_at_most: rating.describe('Only reviews rated this many stars or fewer (1–5)'),
    rating_at_least: rating.describe('Only reviews rated this many stars or more (1–5)'),
    since: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, 'a date as YYYY-MM-DD')
      .optional()
      .describe('Only reviews created on this day or later, YYYY-MM-DD'),
  },
  filter: (args: Record<string, unknown>) =>
    typeof args.sentiment === 'string' ? { field: 'sentiment', value: args.sentiment } : undefined,
  keep(args: Record<string, unknown>): ((row: Row) => boolean) | undefined {
    const most = typeof args.rating_at_most === 'number' ? args.rating_at_most : undefined;
    const least = typeof args.rating_at_least === 'number' ? args.rating_at_least : undefined;
    const since = typeof args.since === 'string' ? args.since : undefined;
    if (most === undefined && least === undefined && since === undefined) return undefined;
    return (row) => {
      const stars = ratingOf(row);
      return (
        (most === undefined || stars <= most) &&
        (least === undefined || stars >= least) &&
        (since === undefined || dayOf(row) >= since)
      );
    };
  },
};
