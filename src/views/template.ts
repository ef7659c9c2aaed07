import { humanize } from '../actions/fields.js';
import { code, escapeMrkdwn, mrkdwnLink } from './escape.js';
import { slackDate, toTime } from './slack-date.js';

/**
 * Values of the gateway's records as a person reads them, and the templates of actions/result-specs.ts filled
 * with them. Every value is escaped here, where it enters mrkdwn. Pure: no I/O.
 */

export type Lookup = (name: string) => unknown;

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
