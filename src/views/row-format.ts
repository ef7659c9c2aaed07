/**
 * One gateway row as a few lines of mrkdwn. Rows are objects whose shape varies by resource
 * (docs/gateway-api.md §2.2), so a short profile per known resource puts its useful fields first, readably (a
 * rating as stars, a position as `#3`), and everything else follows compactly (`key: value · key: value`).
 * Every string that came from the gateway, keys included, is escaped here; nothing else in the page builder
 * sees raw row data.
 */
import type { Row } from '../gateway/types.js';
import { code, escapeMrkdwn, mrkdwnLink } from './escape.js';
import { truncate } from './limits.js';
import { slackDate } from './template.js';

export type { Row };

/**
 * Names of ids the rows carry, by field: `{ category_id: { label: 'Category', names: { cat_02: 'Water heaters' } } }`.
 * Read by the caller (reads/reference-names.ts); an id without a name shows as it is.
 */
export type ReferenceNames = Readonly<
  Record<string, { readonly label: string; readonly names: Readonly<Record<string, string>> }>
>;

/** `Water heaters (`cat_02`)`, or undefined when the id has no known name. */
export function namedId(names: ReferenceNames | undefined, field: string, id: unknown): string | undefined {
  if (typeof id !== 'string' && typeof id !== 'number') return undefined;
  const name = names?.[field]?.names[String(id)];
  return name === undefined
    ? undefined
    : `${escapeMrkdwn(truncate(name, MAX_VALUE_CHARS))} (${code(String(id))})`;
}

/** A row never takes more than this, so several rows share one 3,000-character section. */
const MAX_ROW_CHARS = 900;
const MAX_VALUE_CHARS = 80;
const MAX_LONG_TEXT = 280;
const MAX_REST_CHARS = 400;

/** A field's value as shown; `row` and `names` for the few that depend on more than the value. */
type Format = (v: unknown, row?: Row, names?: ReferenceNames) => string | undefined;
interface Profile {
  /** The first present one is the row's bold title. */
  title: string[];
  /** Shown after the title, in this order, on the first line. */
  fields: Array<[key: string, format: Format]>;
  /** A long text shown as a quote under the first line. */
  body?: string;
}

const num: Format = (v) => (typeof v === 'number' ? v.toLocaleString('en-US') : undefined);
const labelled =
  (label: string, f: Format = num): Format =>
  (v) => {
    const s = f(v) ?? plainValue(v);
    return s === undefined ? undefined : `${label} ${s}`;
  };
/** A count followed by what it counts: `3,578 external pages`. */
const counted =
  (what: string): Format =>
  (v) => {
    const s = num(v) ?? plainValue(v);
    return s === undefined ? undefined : `${s} ${what}`;
  };
const asIs: Format = (v) => plainValue(v);
const position: Format = (v) => (typeof v === 'number' ? `#${v}` : plainValue(v));
const link: Format = (v) => (typeof v === 'string' ? linkValue(v) : plainValue(v));
/** A date labelled with what happened then (`tracked Jun 2`), in Slack's date formatting. */
const dated =
  (label: string): Format =>
  (v) => {
    const shown = typeof v === 'string' ? slackDate(v) : undefined;
    return shown === undefined ? labelled(label, asIs)(v) : `${label} ${shown}`;
  };
const created = dated('created');
/** A ranking's move since its previous observation: ▲3 (up three places), ▼2, = (no move), new. */
const movement: Format = (v) => {
  if (v === 'new') return '_new_';
  if (typeof v !== 'number') return plainValue(v);
  return v > 0 ? `▲${v}` : v < 0 ? `▼${-v}` : '=';
};
const stars: Format = (v) => {
  const n = typeof v === 'string' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n) || n < 0 || n > 5) return plainValue(v);
  const full = Math.round(n);
  return `${'★'.repeat(full)}${'☆'.repeat(5 - full)} ${n}`;
};

/** `published: true` beside `status: published` says nothing new; shown only when the two differ. */
const publishedUnlessSaid: Format = (v, row) => {
  const status = typeof row?.status === 'string' ? row.status.toLowerCase() : undefined;
  if ((v === true && status === 'published') || (v === false && status === 'draft')) return undefined;
  if (typeof v === 'boolean') return v ? 'published' : 'not published';
  return labelled('published', asIs)(v, row);
};
/** An id a dataset names: its name first (`Water heaters (`cat_02`)`), else `category `cat_02``. */
const named =
  (field: string, word: string): Format =>
  (v, _row, names) => {
    const shown = namedId(names, field, v);
    if (shown) return word === 'by' ? `by ${shown}` : shown;
    const id = typeof v === 'string' || typeof v === 'number' ? code(String(v)) : plainValue(v);
    return `${word} ${id ?? ''}`;
  };

const CALLS: Profile = {
  title: ['caller_name', 'caller', 'from', 'phone', 'id'],
  fields: [
    ['source', asIs],
    ['duration', labelled('duration', asIs)],
    ['lead_grade', labelled('grade', asIs)],
    ['status', asIs],
    ['created_at', created],
  ],
};

const PROFILES: Record<string, Profile> = {
  keywords: {
    title: ['keyword'],
    fields: [
      ['position', position],
      ['change', movement],
      ['search_volume', labelled('vol')],
      ['difficulty', labelled('KD')],
      ['url', link],
      // On the row's own line, and only when it is news: a paused keyword among active ones.
      ['status', (v) => (String(v).toLowerCase() === 'active' ? undefined : plainValue(v))],
      ['tracked_at', dated('tracked')],
      ['created_at', created],
    ],
  },
  reviews: {
    title: ['author', 'reviewer', 'name'],
    fields: [
      ['rating', stars],
      ['sentiment', asIs],
      ['created_at', created],
    ],
    body: 'text',
  },
  backlinks: {
    title: ['source_url', 'url'],
    fields: [
      ['anchor', labelled('anchor', (v) => (typeof v === 'string' ? `“${escapeMrkdwn(v)}”` : undefined))],
      ['domain_authority', labelled('DA')],
      ['external_pages', counted('external pages')],
      ['linking_domains', counted('linking domains')],
    ],
  },
  domain_metrics: {
    title: ['domain'],
    fields: [
      ['domain_authority', labelled('DA')],
      ['page_authority', labelled('PA')],
      ['spam_score', labelled('spam score')],
      ['fetched_at', dated('fetched')],
    ],
  },
  llm_reports: {
    title: ['prompt', 'brand_name'],
    fields: [
      ['brand_name', asIs],
      ['engine', asIs],
      ['visibility_score', labelled('visibility')],
      ['mentions', counted('mentions')],
      ['scored_at', dated('scored')],
    ],
  },
  blogs: {
    title: ['post_title', 'title'],
    fields: [
      ['status', asIs],
      ['published', publishedUnlessSaid],
      ['category_id', named('category_id', 'category')],
      ['author_id', named('author_id', 'by')],
      ['word_count', counted('words')],
      ['created_at', created],
      ['url', link],
    ],
  },
  seo_tasks: {
    title: ['title', 'name'],
    fields: [
      ['priority', labelled('priority', asIs)],
      ['status', asIs],
      ['created_at', created],
    ],
  },
  citations: {
    title: ['directory', 'name', 'site'],
    fields: [
      ['status', asIs],
      ['url', link],
    ],
  },
  call_tracking_calls: CALLS,
  callprovider_calls: CALLS,
  seo_reports: {
    title: ['url'],
    fields: [
      ['score', labelled('score')],
      ['issues_found', labelled('issues')],
      ['created_at', created],
    ],
  },
  clients: {
    title: ['name'],
    fields: [
      ['id', (v) => (v === undefined || v === null ? undefined : code(String(v)))],
      ['website', link],
      ['status', asIs],
    ],
  },
};

const GENERIC_TITLES = [
  'title',
  'name',
  'post_title',
  'keyword',
  'headline',
  'topic',
  'subject',
  'url',
  'id',
];

/** `index` is the row's 1-based position in the whole result, shown first so pages can be told apart. */
export function formatRow(resource: string, row: Row, index?: number, names?: ReferenceNames): string {
  const profile = PROFILES[resource];
  const used = new Set<string>();
  const titleKey = [...(profile?.title ?? []), ...GENERIC_TITLES].find((k) => present(row[k]));
  const parts: string[] = [];
  if (titleKey) {
    used.add(titleKey);
    const v = row[titleKey];
    parts.push(typeof v === 'string' && isHttp(v) ? `*${linkValue(v)}*` : `*${plainValue(v, 120) ?? ''}*`);
  }
  const datesShown = new Set<string>();
  for (const [key, format] of profile?.fields ?? []) {
    if (used.has(key) || !present(row[key])) continue;
    used.add(key);
    // The same instant under two names (tracked_at and created_at) is one date, shown once.
    if (isDateKey(key) && datesShown.has(String(row[key]))) continue;
    if (isDateKey(key)) datesShown.add(String(row[key]));
    const shown = format(row[key], row, names);
    if (shown !== undefined && shown !== '') parts.push(shown);
  }
  const lines = [`${index === undefined ? '' : `${index}. `}${parts.join(' · ') || '_(empty row)_'}`];
  if (profile?.body && present(row[profile.body])) {
    used.add(profile.body);
    const body = String(
      typeof row[profile.body] === 'string' ? row[profile.body] : JSON.stringify(row[profile.body]),
    );
    lines.push(`>${escapeMrkdwn(truncate(body.replace(/\s+/g, ' '), MAX_LONG_TEXT))}`);
  }
  const rest = restLine(row, used, datesShown, names);
  if (rest) lines.push(rest);
  return truncate(lines.join('\n'), MAX_ROW_CHARS);
}

/** Every field not shown yet, `key: value · …`, with a count of what did not fit. */
function restLine(row: Row, used: Set<string>, datesShown: Set<string>, names?: ReferenceNames): string {
  const keys = Object.keys(row).filter(
    (k) => !used.has(k) && !(isDateKey(k) && datesShown.has(String(row[k]))),
  );
  const out: string[] = [];
  let length = 0;
  for (const [i, k] of keys.entries()) {
    const value = row[k];
    const when = isDateKey(k) && typeof value === 'string' ? slackDate(value) : undefined;
    if (when !== undefined) datesShown.add(String(value));
    const byName = namedId(names, k, value);
    const piece =
      when !== undefined
        ? `${escapeMrkdwn(dateLabel(k))} ${when}`
        : byName !== undefined
          ? `${escapeMrkdwn((names?.[k]?.label ?? k).toLowerCase())}: ${byName}`
          : `${escapeMrkdwn(truncate(k, 40))}: ${plainValue(value) ?? '—'}`;
    if (length + piece.length > MAX_REST_CHARS) {
      out.push(`+${keys.length - i} more fields`);
      break;
    }
    out.push(piece);
    length += piece.length + 3;
  }
  return out.join(' · ');
}

/** Any value as short escaped mrkdwn: `—` for null, yes/no, URLs as links, nested data as short JSON. */
function plainValue(v: unknown, max = MAX_VALUE_CHARS): string | undefined {
  if (v === undefined) return undefined;
  if (v === null) return '—';
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  if (typeof v === 'string') {
    if (isHttp(v)) return linkValue(v);
    return escapeMrkdwn(truncate(v.replace(/\s+/g, ' ').trim(), max)) || '""';
  }
  if (Array.isArray(v) && v.every((x) => x === null || typeof x !== 'object')) {
    return escapeMrkdwn(truncate(v.map((x) => String(x)).join(', '), max)) || '[]';
  }
  let json: string;
  try {
    json = JSON.stringify(v) ?? String(v);
  } catch {
    json = '[unreadable]'; // circular or BigInt-bearing values cannot come from JSON, but stay safe
  }
  return escapeMrkdwn(truncate(json, max));
}

function linkValue(url: string): string {
  const label = url.replace(/^https?:\/\//i, '').replace(/\/$/, '');
  return mrkdwnLink(url, truncate(label, 60));
}

/** `created_at`, `tracked_at`, `connected_at`, `date`: fields that hold when something happened. */
function isDateKey(key: string): boolean {
  return /(_at|_on|^date)$/i.test(key);
}

/** `updated_at` → `updated`, `first_seen_at` → `first seen`. */
function dateLabel(key: string): string {
  return truncate(key.replace(/_(at|on)$/i, '').replace(/_/g, ' '), 40);
}

function isHttp(s: string): boolean {
  return /^https?:\/\/\S+$/i.test(s.trim());
}

function present(v: unknown): boolean {
  return v !== undefined && v !== null && v !== '';
}
