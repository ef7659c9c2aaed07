/**
 * One page of a readable resource as a Slack message: a summary line, the rows (grouped several to a section),
 * an honest note when not every row fits, and Previous/Next buttons.
 *
 * Paging: the page step is the number of rows shown. Next asks for `offset + shown` and Previous for
 * `offset - step`, both with `limit = min(query.limit, maxRows)`, so clicking through covers every row exactly
 * once even when the first request asked for more rows than one message shows. Commands should request
 * `limit = min(userLimit, DEFAULT_PAGE_ROWS)` so a page never holds rows it cannot show.
 *
 * The buttons' `value` is the query itself (compact JSON, `encodePageQuery`). A click can be forged, so the
 * listener must decode with `decodePageQuery` (zod-checked) and still check the client against the channel's.
 */
import { z } from 'zod';
import type { SlackMessage } from './blocks.js';
import { actions, button, context, type KnownBlock, section } from './blocks.js';
import { code, escapeMrkdwn } from './escape.js';
import { fitMessage, KEEP_BLOCK_PREFIX, MAX_SECTION_TEXT, MAX_VALUE, packSections } from './limits.js';
import { formatRow, type ReferenceNames, type Row } from './row-format.js';

export const DEFAULT_PAGE_ROWS = 20;
export const PAGE_PREV_ACTION = 'page_prev';
export const PAGE_NEXT_ACTION = 'page_next';
/** Room left in a section after the rows packed into it (the joins between rows). */
const SECTION_BUDGET = MAX_SECTION_TEXT - 100;

const name = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/);
const pageQuerySchema = z
  .object({
    resource: name,
    clientId: z.string().min(1).max(200),
    filter: z
      .object({ field: name, value: z.string().max(1000) })
      .strict()
      .optional(),
    order: name.optional(),
    direction: z.enum(['asc', 'desc']).optional(),
    limit: z.number().int().min(1).max(1000),
    offset: z.number().int().min(0).max(100_000_000),
    view: z.literal('rankings').optional(),
    name: name.optional(),
    match: z
      .object({ field: name, text: z.string().min(1).max(200) })
      .strict()
      .optional(),
  })
  .strict();
export type PageQuery = z.infer<typeof pageQuerySchema>;

export interface ResourcePageInput {
  resource: string;
  clientLabel: string;
  rows: Row[];
  pagination: { total: number; limit: number; offset: number; has_more: boolean };
  query: PageQuery;
  /** Rows shown in one message; default DEFAULT_PAGE_ROWS. */
  maxRows?: number;
  /** How the rows are ordered (mrkdwn, escaped by the caller): "Newest first (`created_at`)". */
  orderNote?: string;
  /** Said under an empty page instead of the generic hint (mrkdwn, escaped by the caller). */
  emptyNote?: string;
  /** The `limit` the person typed, when more than a page shows: the page says it pages instead. */
  askedLimit?: number;
  /** What the bot decided about what was typed (mrkdwn, escaped by the caller), on the page's context line. */
  notes?: readonly string[];
  /** Names of the ids the rows carry (a blog's category and author). */
  names?: ReferenceNames;
}

/** Compact JSON for a button value; short keys keep a long filter under Slack's 2,000 characters. */
export function encodePageQuery(q: PageQuery): string {
  const compact: Record<string, unknown> = { r: q.resource, c: q.clientId, l: q.limit, o: q.offset };
  if (q.filter) compact.f = [q.filter.field, q.filter.value];
  if (q.order) compact.s = q.order;
  if (q.direction) compact.d = q.direction;
  if (q.view) compact.v = q.view;
  if (q.name) compact.n = q.name;
  if (q.match) compact.m = [q.match.field, q.match.text];
  return JSON.stringify(compact);
}

/** The query a button carried, or undefined when the value is not one we made (tampered, stale, junk). */
export function decodePageQuery(value: string): PageQuery | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(value);
  } catch {
    return undefined;
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const { r, c, l, o, f, s, d, v, n, m, ...extra } = raw as Record<string, unknown>;
  if (Object.keys(extra).length > 0) return undefined;
  const filter = Array.isArray(f) && f.length === 2 ? { field: f[0], value: f[1] } : f;
  const match = Array.isArray(m) && m.length === 2 ? { field: m[0], text: m[1] } : m;
  const parsed = pageQuerySchema.safeParse({
    resource: r,
    clientId: c,
    limit: l,
    offset: o,
    ...(filter === undefined ? {} : { filter }),
    ...(s === undefined ? {} : { order: s }),
    ...(d === undefined ? {} : { direction: d }),
    ...(v === undefined ? {} : { view: v }),
    ...(n === undefined ? {} : { name: n }),
    ...(match === undefined ? {} : { match }),
  });
  return parsed.success ? parsed.data : undefined;
}

export function buildResourcePage(input: ResourcePageInput): SlackMessage {
  const { resource, rows, pagination, query } = input;
  const maxRows = Math.max(1, input.maxRows ?? DEFAULT_PAGE_ROWS);
  const shown = rows.slice(0, maxRows);
  const offset = pagination.offset;
  const total = Math.max(pagination.total, offset + rows.length);
  const heading = headingOf(input);
  const blocks: KnownBlock[] = [];

  let summary: string;
  if (shown.length === 0) {
    summary = `${heading} · No rows`;
    blocks.push(section(summary), context(emptyHint(input)));
  } else {
    const range = `${fmt(offset + 1)}–${fmt(offset + shown.length)} of ${fmt(total)}`;
    summary = `${heading} · ${range}`;
    blocks.push(section(summary));
    const paged =
      input.askedLimit !== undefined && input.askedLimit > maxRows && pagination.has_more
        ? `${code(`limit=${input.askedLimit}`)}: ${maxRows} a page; Next for more`
        : '';
    const line = [queryLine(query, input.orderNote), ...(input.notes ?? []), paged]
      .filter(Boolean)
      .join(' · ');
    if (line) blocks.push(context(line));
    for (const text of packSections(
      shown.map((row, i) => formatRow(resource, row, offset + i + 1, input.names)),
      '\n\n',
      SECTION_BUDGET,
    )) {
      blocks.push(section(text));
    }
    if (rows.length > shown.length) {
      blocks.push(
        context(
          `Showing ${fmt(shown.length)} of the ${fmt(rows.length)} rows on this page. ` +
            `For more at once use ${code(`limit=${maxRows} offset=${offset + shown.length}`)}, or Next.`,
        ),
      );
    }
  }
  const nav = navigation(input, shown.length, maxRows);
  if (nav) blocks.push(nav);
  const text = `${plainHeading(input)}: ${
    shown.length === 0 ? 'no rows' : `${fmt(offset + 1)}–${fmt(offset + shown.length)} of ${fmt(total)}`
  }`;
  return fitMessage({ text: escapeMrkdwn(text), blocks });
}

/** The client roster is the agency's, not the channel's client's: it says so instead of naming one client. */
const ROSTER_HEADING = 'Clients the agency key reaches';

/** "`reviews` for *Acme*": what was read, for whom. */
function headingOf(input: ResourcePageInput): string {
  if (input.resource === 'clients') return `*${ROSTER_HEADING}*`;
  return `${code(shownName(input))} for *${escapeMrkdwn(input.clientLabel)}*`;
}

/** The heading as the notification's plain text (escaped by the caller). */
function plainHeading(input: ResourcePageInput): string {
  return input.resource === 'clients' ? ROSTER_HEADING : `${shownName(input)} for ${input.clientLabel}`;
}

/** The resource as the person named it: `tasks`, not the gateway's `seo_tasks`. */
function shownName(input: ResourcePageInput): string {
  return input.query.name ?? input.resource;
}

/**
 * A read that matched nothing, as the answer to the person who typed it: what was read and what to try, with
 * no buttons (there is no page to turn).
 */
export function buildEmptyAnswer(input: ResourcePageInput): SlackMessage {
  const summary = `:mag: ${headingOf(input)} · No rows`;
  const text = `${plainHeading(input)}: no rows`;
  return fitMessage({ text: escapeMrkdwn(text), blocks: [section(summary), section(emptyHint(input))] });
}

function navigation(input: ResourcePageInput, shownCount: number, maxRows: number): KnownBlock | undefined {
  const { query, pagination, rows } = input;
  const step = Math.min(query.limit, maxRows);
  const offset = pagination.offset;
  const buttons = [];
  if (offset > 0) {
    const value = encodePageQuery({ ...query, limit: step, offset: Math.max(0, offset - step) });
    if (value.length <= MAX_VALUE)
      buttons.push(button({ text: 'Previous', actionId: PAGE_PREV_ACTION, value }));
  }
  if (pagination.has_more || rows.length > shownCount) {
    const value = encodePageQuery({ ...query, limit: step, offset: offset + shownCount });
    if (value.length <= MAX_VALUE) buttons.push(button({ text: 'Next', actionId: PAGE_NEXT_ACTION, value }));
  }
  return buttons.length > 0 ? actions(`${KEEP_BLOCK_PREFIX}page_nav`, ...buttons) : undefined;
}

function queryLine(q: PageQuery, orderNote: string | undefined): string {
  const parts: string[] = [];
  if (q.filter) parts.push(`Filter: ${code(`${q.filter.field}=${q.filter.value}`)}`);
  if (orderNote) parts.push(orderNote);
  else if (q.order) parts.push(`Order: ${code(q.order)} ${q.direction ?? 'desc'}`);
  else if (q.direction) parts.push(`Direction: ${q.direction}`);
  return parts.join(' · ');
}

function emptyHint(input: ResourcePageInput): string {
  const { query, pagination } = input;
  if (pagination.offset > 0 && pagination.total > 0) {
    return `Offset ${fmt(pagination.offset)} is past the last row (${fmt(pagination.total)} in all): try ${code('offset=0')}.`;
  }
  if (query.match) {
    const nothing = `Nothing matches ${code(`${query.match.field}~${query.match.text}`)}`;
    return input.emptyNote ? `${nothing}. ${input.emptyNote}.` : `${nothing}.`;
  }
  if (query.filter) {
    const nothing = `Nothing matches ${code(`${query.filter.field}=${query.filter.value}`)}`;
    return input.emptyNote
      ? `${nothing}. ${input.emptyNote}`
      : `${nothing}: check the filter's field and value.`;
  }
  return 'No rows yet for this client. If you expected some, check the filter and that the key reaches this client.';
}

function fmt(n: number): string {
  return n.toLocaleString('en-US');
}
