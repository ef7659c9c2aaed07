import { humanize } from '../actions/fields.js';
import { code, escapeMrkdwn, mrkdwnLink, oneLine } from './escape.js';

/**
 * Values of the gateway's records as a person reads them (times as Slack's own dates), the templates of
 * actions/result-specs.ts filled with them, and an action's title from the catalogue's template. Every value is
 * escaped here, where it enters mrkdwn. Pure: no I/O.
 */

export type Lookup = (name: string) => unknown;

/*
 * Slack's own date formatting (`<!date^…>`): each reader sees the time in their own time zone and locale, and
 * the fallback after `|` (shown where Slack cannot format, and by the demo console) is UTC.
 */

const ISO = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A time as a number (ms), a Date, or an ISO-like string (`2025-06-02`, `2025-06-02T10:00:00Z`). */
function toTime(value: unknown): number | undefined {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.getTime();
  if (typeof value === 'number') return Number.isFinite(value) && value > 0 ? value : undefined;
  if (typeof value !== 'string' || !ISO.test(value.trim())) return undefined;
  const text = value.trim().replace(' ', 'T');
  // A bare day is placed at noon UTC, so every time zone from UTC−12 to UTC+11 shows that same day (midnight
  // would show the day before all over the Americas). A time without a zone is the gateway's UTC, not ours.
  const at = DAY.test(text)
    ? Date.parse(`${text}T12:00:00Z`)
    : Date.parse(/(Z|[+-]\d{2}:?\d{2})$/.test(text) ? text : `${text}Z`);
  return Number.isNaN(at) ? undefined : at;
}

/**
 * `<!date^…>` for a time: the day and the time of day, or the day alone for a date without a time
 * (`dayOnly`, and any `YYYY-MM-DD` string). Undefined when the value is not a time.
 */
export function slackDate(value: unknown, options: { dayOnly?: boolean } = {}): string | undefined {
  const at = toTime(value);
  if (at === undefined) return undefined;
  const dayOnly = options.dayOnly ?? (typeof value === 'string' && DAY.test(value.trim()));
  const iso = new Date(at).toISOString();
  const fallback = dayOnly ? iso.slice(0, 10) : `${iso.slice(0, 16).replace('T', ' ')} UTC`;
  const format = dayOnly ? '{date_short_pretty}' : '{date_short_pretty} at {time}';
  return `<!date^${Math.floor(at / 1000)}^${format}|${fallback}>`;
}

const isUrl = (v: string) => /^https?:\/\/\S+$/i.test(v.trim());

function formatNumber(value: number): string {
  return Number.isInteger(value) ? value.toLocaleString('en-US') : String(Math.round(value * 100) / 100);
}

/** A place by its coordinates, linked to a map: "30.2672° N, 97.7431° W". */
function place(lat: unknown, lng: unknown): string | undefined {
  const a = Number(lat);
  const b = Number(lng);
  if (lat === undefined || lng === undefined || !Number.isFinite(a) || !Number.isFinite(b)) return undefined;
  const shown = `${Math.abs(a)}° ${a < 0 ? 'S' : 'N'}, ${Math.abs(b)}° ${b < 0 ? 'W' : 'E'}`;
  return mrkdwnLink(`https://www.openstreetmap.org/?mlat=${a}&mlon=${b}#map=12/${a}/${b}`, shown);
}

/** A value without a declared kind: links, Slack dates, grouped numbers, lists; never JSON. */
export function showValue(value: unknown, name = ''): string | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'number') return /(^|_)id$/.test(name) ? code(String(value)) : formatNumber(value);
  if (typeof value === 'string') {
    if (isUrl(value)) return mrkdwnLink(value);
    if (name === 'id' || name.endsWith('_id')) return code(value);
    if (name.endsWith('_at') || /^\d{4}-\d{2}-\d{2}T/.test(value))
      return slackDate(value) ?? escapeMrkdwn(value);
    return escapeMrkdwn(value);
  }
  if (Array.isArray(value)) {
    if (value.every((v) => v === null || typeof v !== 'object')) {
      const shown = value.map((v) => showValue(v)).filter((v) => v !== undefined);
      return shown.length ? shown.join(', ') : undefined;
    }
    return `${value.length} ${value.length === 1 ? 'item' : 'items'}`;
  }
  if (typeof value === 'object') {
    const parts = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v === null || typeof v !== 'object')
      .map(([k, v]) => `${escapeMrkdwn(humanize(k))}: ${showValue(v, k) ?? '—'}`);
    return parts.length ? parts.join(', ') : undefined;
  }
  return escapeMrkdwn(String(value));
}

/** One value in a declared kind; undefined when it is missing or not of that kind. */
export function formatKind(value: unknown, kind: string | undefined, name: string, lookup: Lookup) {
  if (value === null || value === undefined || value === '') return undefined;
  switch (kind) {
    case undefined:
    case 'text':
      return typeof value === 'string' ? escapeMrkdwn(value) : showValue(value, name);
    case 'number':
      return typeof value === 'number' ||
        (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)))
        ? formatNumber(Number(value))
        : showValue(value, name);
    case 'id':
      return code(String(value));
    case 'url':
      return typeof value === 'string' ? mrkdwnLink(value) : undefined;
    case 'date':
      return toTime(value) === undefined ? showValue(value, name) : slackDate(value);
    case 'count':
      return Array.isArray(value) ? formatNumber(value.length) : undefined;
    case 'list':
      return showValue(Array.isArray(value) ? value : [value], name);
    case 'place':
      return place(value, lookup('lng'));
    case 'yesno':
      return value ? 'yes' : 'no';
    default:
      return showValue(value, name);
  }
}

/**
 * Fills each part's `{name}` and `{name|kind}` from `lookup`; a part with a missing value is dropped, and the
 * kept parts are joined with `separator`. Empty when no part could be filled.
 */
export function fillTemplate(parts: readonly string[], lookup: Lookup, separator = ' '): string {
  const kept: string[] = [];
  for (const part of parts) {
    let missing = false;
    const filled = part.replace(/\{([A-Za-z0-9_]+)(?:\|([a-z]+))?\}/g, (_, name: string, kind?: string) => {
      const shown = formatKind(lookup(name), kind, name, lookup);
      if (shown === undefined) missing = true;
      return shown ?? '';
    });
    if (!missing) kept.push(filled);
  }
  return kept.join(separator).replace(/ \n/g, '\n').trim();
}

/*
 * A job's title as English, from the catalogue's template: "Blog article about “best plumber austin”",
 * "SEO audit of https://…", and for an action only discovery knows, "FAQ about “water heaters”". Mrkdwn,
 * escaped, on one line: a value of several lines (a prompt) cannot add lines to the message it heads.
 */

export interface TitleEntry {
  label: string;
  title?: readonly string[];
  /** The action's fields, required ones first: an action without a template is named by its first value. */
  fields?: ReadonlyArray<{ name: string }>;
}

const SUBJECT_FIELDS = ['url', 'keyword', 'topic', 'headline', 'title', 'prospectUrl', 'prompt', 'seed'];

/** The main field of an action's fields: the one a person would name it by. */
export function subjectOf(fields: Record<string, unknown>, names = SUBJECT_FIELDS): string | undefined {
  for (const name of names) {
    const value = fields[name];
    if (typeof value === 'string' && value.trim()) return value.trim();
  }
  return undefined;
}

export function actionTitle(entry: TitleEntry, fields: Record<string, unknown>): string {
  return oneLine(titleOf(entry, fields));
}

function titleOf(entry: TitleEntry, fields: Record<string, unknown>): string {
  if (entry.title) {
    const filled = fillTemplate(entry.title, (name) => fields[name]);
    if (filled) return filled;
  }
  const names = [...SUBJECT_FIELDS, ...(entry.fields ?? []).map((f) => f.name)];
  const subject = subjectOf(fields, names);
  if (!subject) return escapeMrkdwn(entry.label);
  if (/^https?:\/\//i.test(subject)) return `${escapeMrkdwn(entry.label)} of ${mrkdwnLink(subject)}`;
  return `${escapeMrkdwn(entry.label)} about “${escapeMrkdwn(subject)}”`;
}
