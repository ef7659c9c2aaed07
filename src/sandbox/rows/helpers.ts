import type { Row } from '../../gateway/types.js';
import type { SampleClient } from '../clients.js';
import type { Rng } from '../prng.js';
import { FIRST_NAMES, LAST_NAMES } from './words.js';

export const DAY_MS = 86_400_000;

/** What a generator gets: a private random stream, the client, and the instant the data ends at. */
export interface GenContext {
  rng: Rng;
  client: SampleClient;
  anchorMs: number;
  keywordRows: number;
}

export type RowGenerator = (ctx: GenContext) => Row[];

export function pad(n: number, width = 6): string {
  return String(n).padStart(width, '0');
}

export function sized(ctx: GenContext, large: number, small: number): number {
  return ctx.client.size === 'large' ? large : small;
}

/**
 * The i-th of n instants spread over the last `spanDays` before the anchor, ascending with i: rows come in
 * the order a database would have inserted them.
 */
function spreadIso(ctx: GenContext, i: number, n: number, spanDays: number): string {
  const step = (spanDays * DAY_MS) / Math.max(n, 1);
  const at = ctx.anchorMs - (n - i) * step + Math.floor(ctx.rng.next() * step * 0.9);
  return new Date(at).toISOString();
}

export function personName(ctx: GenContext): string {
  return `${ctx.rng.pick(FIRST_NAMES)} ${ctx.rng.pick(LAST_NAMES)}`;
}

export function titleCase(text: string): string {
  return text.replace(/\b\w/g, (c) => c.toUpperCase());
}

export function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

/** n rows from a builder that gets the index and the row's created_at. */
export function build(
  ctx: GenContext,
  n: number,
  spanDays: number,
  row: (i: number, createdAt: string) => Row,
): Row[] {
  const rows: Row[] = new Array(n);
  for (let i = 0; i < n; i++) rows[i] = row(i, spreadIso(ctx, i, n, spanDays));
  return rows;
}
