import type { ChannelBinding } from '../bindings/index.js';
import type { Page, ReadParams, Row } from '../gateway/index.js';
import { defaultOrder } from '../gateway/index.js';
import { UserError, UserErrorCode } from '../requests/index.js';
import type { CoreServices } from '../services.js';
import type { SlackMessage } from '../views/blocks.js';
import { code, escapeMrkdwn } from '../views/escape.js';
import {
  buildEmptyAnswer,
  buildResourcePage,
  DEFAULT_PAGE_ROWS,
  type ResourcePageInput,
} from '../views/resource-page.js';
import { closestName } from './closest-name.js';
import { LOCAL_SORT_ROWS, type LocalSort, localSort, sortRows } from './local-sorts.js';
import { newestRows, rankingsOf } from './rankings-read.js';
import type { ReadQuery } from './read-query.js';
import { referenceNames } from './reference-names.js';

/** What a read of a resource uses: the gateway, the access rules, the logger. */
type ReadDeps = Pick<CoreServices, 'gateway' | 'access' | 'logger'>;

/**
 * reads/ owns reading gateway resources for people, from any surface: the query grammar, default orders,
 * keyword rankings, local sorts and paging.
 */

/** Rows looked at to say which values a filter field has, when a filter matched nothing. */
const VALUES_SAMPLE_ROWS = 1_000;
const MAX_VALUES_SHOWN = 12;

/** Refuses a resource the discovery call does not list, with the closest match (new resources work without code). */
export async function checkResource(services: Pick<ReadDeps, 'gateway'>, resource: string): Promise<void> {
  const { resources } = await services.gateway.discover();
  if (resources.includes(resource)) return;
  const guess = closestName(resource, resources);
  throw new UserError(UserErrorCode.UnknownResource, `The gateway has no resource called \`${resource}\`.`, {
    hint: guess ? `Did you mean \`${guess}\`?` : `Readable resources: ${resources.join(', ')}.`,
  });
}

interface ReadOutcome {
  rows: Row[];
  pagination: Page['pagination'];
  /** How the rows are ordered, for the page's context line. */
  note: string;
  /** The kept list the rows were sliced from (rankings): while it is the same, so is a page of it. */
  source?: readonly Row[];
}

/**
 * Pages rendered from a kept list, by everything else that shapes them: Next, Previous and the same command
 * again reuse the rendering (and its serialised JSON) while the data has not changed, and a new list (the
 * data changed) starts afresh, the old one's pages going with it.
 */
const renderedPages = new WeakMap<readonly Row[], Map<string, SlackMessage>>();
const PAGES_KEPT = 64;

function renderPage(input: ResourcePageInput, source: readonly Row[] | undefined): SlackMessage {
  if (!source) return buildResourcePage(input);
  const key = JSON.stringify([
    input.resource,
    input.clientLabel,
    input.query,
    input.orderNote,
    input.askedLimit,
    input.pagination,
    input.notes,
  ]);
  const pages = renderedPages.get(source) ?? new Map<string, SlackMessage>();
  renderedPages.set(source, pages);
  let page = pages.get(key);
  if (!page) {
    page = buildResourcePage(input);
    if (pages.size >= PAGES_KEPT) pages.clear();
    pages.set(key, page);
  }
  return page;
}

/** Reads one page of a resource for the channel's client, as `user` may, and renders it (with Next/Previous). */
export async function readResourcePage(
  services: ReadDeps,
  user: string,
  binding: Pick<ChannelBinding, 'clientId' | 'clientLabel'>,
  resource: string,
  query: ReadQuery,
): Promise<SlackMessage> {
  const { input, source } = await readResource(services, user, binding, resource, query);
  return renderPage(input, source);
}

/**
 * A read as a command answers it: a page for the channel, or, when nothing matched (a mistyped filter, an
 * offset past the end), what to try, for the person alone (`empty`): an empty page tells the channel nothing.
 */
export async function readResourceAnswer(
  services: ReadDeps,
  user: string,
  binding: Pick<ChannelBinding, 'clientId' | 'clientLabel'>,
  resource: string,
  query: ReadQuery,
): Promise<{ message: SlackMessage; empty: boolean }> {
  const { input, source } = await readResource(services, user, binding, resource, query);
  return input.rows.length === 0
    ? { message: buildEmptyAnswer(input), empty: true }
    : { message: renderPage(input, source), empty: false };
}

async function readResource(
  services: ReadDeps,
  user: string,
  binding: Pick<ChannelBinding, 'clientId' | 'clientLabel'>,
  resource: string,
  query: ReadQuery,
): Promise<{ input: ResourcePageInput; source?: readonly Row[] }> {
  services.access.requireRead(user, resource);
  const clientId = resource === 'clients' ? undefined : binding.clientId;
  if (query.filter && query.filter.value === '') {
    // `sentiment=` would match nothing at the gateway: say so, with the values there are.
    const values = await filterValuesNote(services, resource, clientId, query.filter);
    throw new UserError(UserErrorCode.BadArguments, `\`${query.filter.field}=\` has no value.`, {
      hint: `Write the value to match after the \`=\`.${values ? ` ${values}` : ''}`,
    });
  }
  // A message shows DEFAULT_PAGE_ROWS rows: fetching more (`limit=1000`) would read rows nobody sees. Next
  // then steps by what was shown, so paging still covers every row once.
  const limit = Math.min(query.limit, DEFAULT_PAGE_ROWS);
  const sort = localSort(resource, query.order);
  const { notes, ...asked } = query;
  const read = { services, resource, clientId, query: asked, limit };
  const outcome =
    query.view === 'rankings'
      ? await readRankings(read, sort)
      : sort || query.match
        ? await readSorted(read, sort)
        : await readPage(read);
  const emptyNote =
    outcome.rows.length === 0 && query.match
      ? outcome.note
      : outcome.rows.length === 0 && query.filter && query.offset === 0
        ? await filterValuesNote(services, resource, clientId, query.filter)
        : undefined;
  const names = await referenceNames(
    { gateway: services.gateway, logger: services.logger },
    clientId,
    resource,
    outcome.rows,
  );
  const input: ResourcePageInput = {
    resource,
    clientLabel: binding.clientLabel,
    rows: outcome.rows,
    ...(Object.keys(names).length ? { names } : {}),
    pagination: outcome.pagination,
    query: { resource, clientId: binding.clientId, ...asked, limit },
    maxRows: DEFAULT_PAGE_ROWS,
    orderNote: outcome.note,
    ...(notes?.length ? { notes } : {}),
    ...(emptyNote ? { emptyNote } : {}),
    ...(query.limit > limit ? { askedLimit: query.limit } : {}),
  };
  return { input, ...(outcome.source && !emptyNote ? { source: outcome.source } : {}) };
}

interface Read {
  services: ReadDeps;
  resource: string;
  clientId: string | undefined;
  query: ReadQuery;
  limit: number;
}

/** One page from the gateway, in the resource's natural order (newest first) unless another is asked for. */
async function readPage({ services, resource, clientId, query, limit }: Read): Promise<ReadOutcome> {
  const natural = defaultOrder(resource);
  const order = query.order ?? natural;
  const direction = query.direction ?? (order ? 'desc' : undefined);
  const page = await services.gateway.read(resource, {
    clientId,
    filter: query.filter,
    order,
    direction,
    limit,
    offset: query.offset,
  });
  let note = '';
  // A time order reads the same whether it is the default or asked for: "Oldest first (`created_at`)".
  if (order && isTime(order)) {
    note = `${direction === 'asc' ? 'Oldest' : 'Newest'} first (${code(order)})`;
  } else if (order) {
    note = `Order: ${code(order)} ${direction ?? 'desc'}`;
  }
  return { rows: page.data, pagination: page.pagination, note };
}

/**
 * A sort the gateway cannot do (docs/gateway-api.md §4.2): over a bounded read of the newest rows, and the
 * page says so.
 */
async function readSorted(read: Read, sort: LocalSort | undefined): Promise<ReadOutcome> {
  const { services, resource, clientId, query } = read;
  const collected = await newestRows(services.gateway, resource, clientId, query.filter, LOCAL_SORT_ROWS);
  const { match } = read.query;
  const rows = match ? matching(collected.rows, match) : collected.rows;
  if (!sort) {
    // A text match alone: the newest rows that match, in the gateway's order.
    const over = collected.truncated
      ? `, over the ${fmt(collected.rows.length)} newest rows read (of ${fmt(collected.total)}): later ones were not looked at`
      : '';
    return { ...slice(rows, read), note: `${matchWords(match)}${over}` };
  }
  const direction = read.query.direction ?? sort.natural;
  const sorted = sortRows(rows, sort, direction);
  const note = sortedNote(
    sort,
    direction,
    collected.rows.length,
    collected.total,
    collected.truncated,
    'rows',
  );
  return { ...slice(sorted, read), note: match ? `${matchWords(match)}; ${lower(note)}` : note };
}

/** Rows whose `field` contains `text`, in any case. */
function matching(rows: readonly Row[], match: NonNullable<ReadQuery['match']>): Row[] {
  const wanted = match.text.toLowerCase();
  return rows.filter((r) => {
    const v = r[match.field];
    return (typeof v === 'string' || typeof v === 'number') && String(v).toLowerCase().includes(wanted);
  });
}

/** "With “plumb” in `keyword`" (escaped: the text is the person's). */
function matchWords(match: ReadQuery['match']): string {
  return match ? `With “${escapeMrkdwn(match.text)}” in ${code(match.field)}` : '';
}

const lower = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);

/** The ranked rows oldest first, kept beside the sorts (a key no `field:direction` can be). */
const OLDEST_FIRST = ':oldest';

/** `keywords`: each keyword once at its latest observation, with its change, sorted as asked. */
async function readRankings(read: Read, sort: LocalSort | undefined): Promise<ReadOutcome> {
  const collected = await rankingsOf(read.services.gateway, read.clientId ?? '', read.query.filter);
  const { ranked } = collected;
  const window = collected.truncated
    ? ` over the ${fmt(collected.read)} newest rows (of ${fmt(collected.total)})`
    : '';
  const { match } = read.query;
  // A text match is one pass over the ranked list (kept, so bounded by the read above), after its sort.
  const matched = (rows: Row[]) => (match ? matching(rows, match) : rows);
  const which = match ? `Each keyword with “${escapeMrkdwn(match.text)}” in it` : 'Each keyword';
  if (!sort) {
    const oldest = read.query.direction === 'asc';
    const all = oldest ? (collected.sorted.get(OLDEST_FIRST) ?? [...ranked].reverse()) : ranked;
    if (oldest) collected.sorted.set(OLDEST_FIRST, all);
    const rows = matched(all);
    const note = `${which} at its latest observation, ${oldest ? 'oldest' : 'newest'} first${window ? `,${window}` : ''}; change since the one before`;
    return { ...slice(rows, read), note, ...(match ? {} : { source: rows }) };
  }
  const direction = read.query.direction ?? sort.natural;
  const words = `${which} at its latest observation, sorted by ${sort.name}, ${sort.words[direction]}`;
  const key = `${sort.field}:${direction}`;
  const all = collected.sorted.get(key) ?? sortRows(ranked, sort, direction);
  collected.sorted.set(key, all);
  const sorted = matched(all);
  return {
    ...slice(sorted, read),
    note: window ? `${words},${window}` : words,
    ...(match ? {} : { source: sorted }),
  };
}

function slice(rows: readonly Row[], { query, limit }: Read): Pick<ReadOutcome, 'rows' | 'pagination'> {
  const { offset } = query;
  return {
    rows: rows.slice(offset, offset + limit),
    pagination: { total: rows.length, limit, offset, has_more: offset + limit < rows.length },
  };
}

function sortedNote(
  sort: LocalSort,
  direction: 'asc' | 'desc',
  read: number,
  total: number,
  truncated: boolean,
  unit: string,
): string {
  const by = `Sorted by ${sort.name}, ${sort.words[direction]}`;
  return truncated ? `${by}, over the ${fmt(read)} newest ${unit} (of ${fmt(total)})` : by;
}

/**
 * A filter that matched nothing: which values the field has (from a sample of the newest rows), leading with
 * the one that differs only in case. Undefined when the sample has none of the field.
 */
async function filterValuesNote(
  services: ReadDeps,
  resource: string,
  clientId: string | undefined,
  filter: { field: string; value: string },
): Promise<string | undefined> {
  const params: ReadParams = { clientId, limit: VALUES_SAMPLE_ROWS };
  const order = defaultOrder(resource);
  if (order) Object.assign(params, { order, direction: 'desc' });
  const sample = await services.gateway.read(resource, params).catch(() => undefined);
  const values = new Set<string>();
  for (const row of sample?.data ?? []) {
    const v = row[filter.field];
    if (v !== undefined && v !== null && typeof v !== 'object') values.add(String(v));
  }
  if (values.size === 0) return `No ${code(resource)} row has a ${code(filter.field)} field.`;
  const same = [...values].find((v) => v.toLowerCase() === filter.value.toLowerCase());
  const known = [...values].sort().slice(0, MAX_VALUES_SHOWN);
  const list = known.map((v) => code(v)).join(', ') + (values.size > known.length ? ', …' : '');
  const valuesLine = `Values of ${code(filter.field)}: ${list}.`;
  return same !== undefined
    ? `Did you mean ${code(`${filter.field}=${same}`)}? Values match exactly. ${valuesLine}`
    : valuesLine;
}

function isTime(order: string): boolean {
  return /_at$/.test(order);
}

function fmt(n: number): string {
  return n.toLocaleString('en-US');
}
