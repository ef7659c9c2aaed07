import type { Row } from '../gateway/index.js';
import type { ReviewFilters } from './filters.js';

/**
 * Reviews. New means an id not seen before, whatever its `created_at`: a review that arrives late
 * (dated before the last digest) is still new. Only what a digest shows is kept from a row. Pure.
 */

export interface NewReview {
  id: string;
  author: string;
  rating: number | undefined;
  sentiment: string;
  text: string;
  createdAt: string;
}

export interface ReviewDiff {
  /** New reviews the digest lists: 1- and 2-star ones first, then the rest, lowest rating first. */
  listed: NewReview[];
  /** New 1- and 2-star reviews: they lead, whatever the filters. */
  alarming: number;
  /** Counts of the listed reviews by sentiment. */
  bySentiment: Record<string, number>;
  averageRating: number | undefined;
  /** New reviews the filters left out. */
  filteredOut: number;
}

const SNIPPET = 280;

function text(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);
}

export function toNewReview(row: Row): NewReview {
  const rating = typeof row.rating === 'number' ? row.rating : Number(row.rating);
  const body = text(row.text ?? row.comment ?? row.body);
  return {
    id: text(row.id),
    author: text(row.author ?? row.reviewer ?? row.name) || 'someone',
    rating: Number.isFinite(rating) ? rating : undefined,
    sentiment: text(row.sentiment).toLowerCase() || 'unknown',
    text: body.length > SNIPPET ? `${body.slice(0, SNIPPET - 1)}…` : body,
    createdAt: text(row.created_at),
  };
}

const isAlarming = (r: NewReview) => r.rating !== undefined && r.rating <= 2;

function passes(r: NewReview, filters: ReviewFilters): boolean {
  if (filters.sentiment && r.sentiment !== filters.sentiment) return false;
  if (filters.maxRating !== undefined && (r.rating === undefined || r.rating > filters.maxRating))
    return false;
  return true;
}

export function diffReviews(fresh: readonly NewReview[], filters: ReviewFilters = {}): ReviewDiff {
  const listed = fresh.filter((r) => isAlarming(r) || passes(r, filters));
  listed.sort(
    (a, b) =>
      (a.rating ?? 6) - (b.rating ?? 6) || b.createdAt.localeCompare(a.createdAt) || a.id.localeCompare(b.id),
  );
  const bySentiment: Record<string, number> = {};
  let sum = 0;
  let rated = 0;
  for (const r of listed) {
    bySentiment[r.sentiment] = (bySentiment[r.sentiment] ?? 0) + 1;
    if (r.rating !== undefined) {
      sum += r.rating;
      rated++;
    }
  }
  return {
    listed,
    alarming: listed.filter(isAlarming).length,
    bySentiment,
    averageRating: rated ? sum / rated : undefined,
    filteredOut: fresh.length - listed.length,
  };
}
