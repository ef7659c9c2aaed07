import type { Token } from '../actions/index.js';
import { defaultOrder, FILTER_FIELDS, ORDER_FIELDS, resourceFields } from '../gateway/index.js';
import { UserError, UserErrorCode } from '../requests/index.js';
import { localSort, localSorts } from './local-sorts.js';

/** A parsed read: what `get` and the shortcuts send to the gateway. */
export interface ReadQuery {
  filter?: { field: string; value: string };
  order?: string;
  direction?: 'asc' | 'desc';
  limit: number;
  offset: number;
  /** `keywords`: each keyword once, at its latest observation (keyword-rankings.ts). */
  view?: 'rankings';
  /** What the page's heading calls the resource, when the command has another name (`tasks` for seo_tasks). */
  name?: string;
  /** `keyword~plumb`: rows whose field contains the text (any case), matched by the bot over a bounded read. */
  match?: { field: string; text: string };
  /** What the bot decided about what was typed, said on the page (`desc` and `asc` both given). */
  notes?: string[];
}

/** What is read, and how it may be filtered and sorted: the hints name these, not every field there is. */
export interface ReadTarget {
  resource: string;
  view?: 'rankings';
  /** The words after `/gateway` that name this read (`tasks`, `get seo_tasks`), for examples to copy. */
  command?: string;
  /** The shortcut's name when it is not the resource's (`tasks`): the page's heading shows what was typed. */
  name?: string;
}

/**
 * The filters that fit a resource: those docs/gateway-api.md §2.1 names for it, else every filter the gateway
 * takes.
 */
function filterHint(target: ReadTarget): string {
  const named = resourceFields(target.resource)?.filters;
  const fields = named && named.length > 0 ? named : FILTER_FIELDS;
  return `Filter \`${target.resource}\` by ${fields.map((f) => `\`${f}=…\``).join(', ')}.`;
}

/**
 * The orders that fit a resource: its default, what docs/gateway-api.md §2.1 names, and the bot's own sorts.
 */
function orderHint(target: ReadTarget): string {
  const names = new Set<string>();
  const first = defaultOrder(target.resource);
  if (first) names.add(first);
  for (const o of resourceFields(target.resource)?.orders ?? ORDER_FIELDS) names.add(o);
  for (const s of localSorts(target.resource))
    if (s.name !== 'change' || target.view === 'rankings') names.add(s.name);
  const newest = first ? ` (newest first by default; add \`asc\` for oldest first)` : '';
  return `Sort \`${target.resource}\` with ${[...names].map((o) => `\`order=${o}\``).join(', ')}${newest}.`;
}

/** Two filters: the gateway takes one, so the refusal says which to keep, with a command to copy. */
function oneFilter(
  target: ReadTarget,
  field: string,
  value: string | undefined,
  field2: string,
  value2: string,
  usage: string,
): UserError {
  const first = `${field}=${value ?? '…'}`;
  const command = `/gateway ${target.command ?? `get ${target.resource}`}`;
  if (field === field2) {
    return new UserError(
      UserErrorCode.BadArguments,
      `\`${field}\` is given twice: the gateway matches one value at a time.`,
      { hint: `Keep one, e.g. \`${command} ${first}\`, then read \`${field2}=${value2}\` after it.`, usage },
    );
  }
  return new UserError(
    UserErrorCode.BadArguments,
    `The gateway filters on one field at a time: keep \`${first}\` or \`${field2}=${value2}\`.`,
    { hint: `For example \`${command} ${first}\`.`, usage },
  );
}

/** Whether `order=<name>` would be taken for this read. */
function sortable(target: ReadTarget, name: string): boolean {
  const local = localSort(target.resource, name);
  if (local) return local.name !== 'change' || target.view === 'rankings';
  return (ORDER_FIELDS as readonly string[]).includes(name);
}

/** Fields a read can match by text (`keyword~plumb`), per resource: bot-side, so only what is worth it. */
const TEXT_MATCH_FIELDS: Readonly<Record<string, readonly string[]>> = { keywords: ['keyword'] };

/** `keyword~plumb`: a field of the resource that takes a text match, and some text to find. */
function textMatch(target: ReadTarget, field: string, text: string, usage: string): ReadQuery['match'] {
  const fields = TEXT_MATCH_FIELDS[target.resource] ?? [];
  const name = field.toLowerCase();
  if (!fields.includes(name)) {
    const takes = fields.length
      ? `Only ${fields.map((f) => `\`${f}~text\``).join(', ')} matches by text here.`
      : `\`${target.resource}\` takes no \`~\` text match.`;
    throw new UserError(UserErrorCode.BadArguments, `I cannot match \`${field}\` by text. ${takes}`, {
      hint: filterHint(target),
      usage,
    });
  }
  const wanted = text.trim();
  if (!wanted)
    throw new UserError(UserErrorCode.BadArguments, `\`${name}~\` needs the text to look for.`, {
      hint: `For example \`/gateway ${target.command ?? `get ${target.resource}`} ${name}~plumb\`.`,
      usage,
    });
  return { field: name, text: wanted.slice(0, 200) };
}

/** A whole number from `min` to `max`; without a `max` that anyone would type, the refusal says "0 or more". */
const whole = (name: string, text: string, min: number, max: number | undefined, usage: string): number => {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < min || (max !== undefined && n > max) || !Number.isSafeInteger(n)) {
    const range = max === undefined ? `${min} or more` : `from ${min} to ${max}`;
    throw new UserError(UserErrorCode.BadArguments, `\`${name}\` must be a whole number, ${range}.`, {
      usage,
    });
  }
  return n;
};

/** The query being read, and the filter as typed so far (a field and a value may come apart). */
interface Reading {
  query: ReadQuery;
  target: ReadTarget;
  usage: string;
  filterField?: string;
  filterValue?: string;
}

/**
 * Parses `[filter_field=value] [order=field] [asc|desc] [limit=N] [offset=N]`. A filter is written as
 * `status=active` (any of the gateway's filter fields) or `filter_field=status filter_value=active`.
 */
export function parseReadQuery(
  args: Token[],
  usage: string,
  defaultLimit: number,
  target: ReadTarget,
): ReadQuery {
  const reading: Reading = {
    query: {
      limit: defaultLimit,
      offset: 0,
      ...(target.view ? { view: target.view } : {}),
      ...(target.name && target.name !== target.resource ? { name: target.name } : {}),
    },
    target,
    usage,
  };
  for (const token of args) {
    if (token.kind === 'word') readWord(reading, token.value);
    else readPair(reading, token.name, token.value);
  }
  const { query, filterField, filterValue } = reading;
  if (filterField !== undefined || filterValue !== undefined) {
    if (!filterField || filterValue === undefined) {
      throw new UserError(
        UserErrorCode.BadArguments,
        'A filter needs both a field and a value, e.g. `status=active`.',
        { usage },
      );
    }
    if (!(FILTER_FIELDS as readonly string[]).includes(filterField)) {
      throw new UserError(UserErrorCode.BadArguments, `\`${filterField}\` is not a filter field.`, {
        hint: filterHint(target),
        usage,
      });
    }
    query.filter = { field: filterField, value: filterValue };
  }
  return query;
}

/** A bare word: a direction, or a text match `field~text`. */
function readWord(reading: Reading, value: string): void {
  const { query, target, usage } = reading;
  const word = value.toLowerCase();
  if (word === 'asc' || word === 'desc') {
    // Both directions at once: the last one typed wins, as with any repeated option, and the page says so.
    if (query.direction && query.direction !== word)
      query.notes = [`Both \`${query.direction}\` and \`${word}\` given: used \`${word}\`, the last one`];
    query.direction = word;
    return;
  }
  const contains = /^([A-Za-z_][A-Za-z0-9_]*)~(.*)$/s.exec(value);
  if (contains) {
    query.match = textMatch(target, contains[1] ?? '', contains[2] ?? '', usage);
    return;
  }
  throw new UserError(UserErrorCode.BadArguments, `I don't understand \`${value}\` here.`, {
    hint: `${filterHint(target)} ${orderHint(target)}`,
    usage,
  });
}

/** A `name=value` pair: an order, a direction, a page bound, or a filter. */
function readPair(reading: Reading, typedName: string, value: string): void {
  const { query, target, usage } = reading;
  const name = typedName.toLowerCase();
  if (name === 'order') query.order = orderOf(target, value, usage);
  else if (name === 'direction') {
    const dir = value.toLowerCase();
    if (dir !== 'asc' && dir !== 'desc') {
      throw new UserError(UserErrorCode.BadArguments, '`direction` is `asc` or `desc`.', { usage });
    }
    query.direction = dir;
  } else if (name === 'limit') query.limit = whole('limit', value, 1, 1000, usage);
  else if (name === 'offset') query.offset = whole('offset', value, 0, undefined, usage);
  else if (name === 'filter_field') reading.filterField = value;
  else if (name === 'filter_value') reading.filterValue = value;
  else if ((FILTER_FIELDS as readonly string[]).includes(name)) {
    if (reading.filterField !== undefined)
      throw oneFilter(target, reading.filterField, reading.filterValue, name, value, usage);
    reading.filterField = name;
    reading.filterValue = value;
  } else if (sortable(target, name)) {
    // `rating=5`: a field the bot can sort by but the gateway cannot filter on.
    throw new UserError(
      UserErrorCode.BadArguments,
      `I cannot filter \`${target.resource}\` by \`${typedName}\`, but I can sort by it: \`order=${name}\`.`,
      { hint: filterHint(target), usage },
    );
  } else {
    throw new UserError(
      UserErrorCode.BadArguments,
      `\`${typedName}\` is not something I can filter or sort by.`,
      {
        hint: `${filterHint(target)} ${orderHint(target)} Also: \`limit=\`, \`offset=\`.`,
        usage,
      },
    );
  }
}

function orderOf(target: ReadTarget, value: string, usage: string): string {
  const local = localSort(target.resource, value);
  const onlyRankings = local?.name === 'change' && target.view !== 'rankings';
  if (onlyRankings || (!local && !(ORDER_FIELDS as readonly string[]).includes(value))) {
    throw new UserError(UserErrorCode.BadArguments, `\`order\` cannot be \`${value}\` here.`, {
      hint: onlyRankings
        ? 'The change since the last observation is in `/gateway keywords order=change`.'
        : orderHint(target),
      usage,
    });
  }
  return local ? local.name : value;
}
