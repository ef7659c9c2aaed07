import { humanize } from '../actions/fields.js';
import type { ResultFieldSpec, ResultSpec, ResultTableSpec } from '../actions/result-specs.js';
import type { KnownBlock, SlackMessage } from './blocks.js';
import { actions, button, context, fields, section } from './blocks.js';
import { code, escapeMrkdwn } from './escape.js';
import { fitMessage, truncate } from './limits.js';
import { namedId, type ReferenceNames } from './row-format.js';
import {
  actionTitle,
  fillTemplate,
  formatKind,
  type Lookup,
  showValue,
  slackDate,
  type TitleEntry,
} from './template.js';

/**
 * A successful action's result: the one-line summary the status message shows, and the card its
 * thread shows, both built from the catalogue's result spec (actions/result-specs.ts): a headline, a short
 * table, bullets, a quote, labelled fields, then the record's id and time. Fields the spec does not name
 * still show, readably, unless they only echo the request. Never raw JSON. Pure: no I/O.
 */

/** On a result: "Request deploy" (generate_blog) and "Send…" (generate_outreach_email); values are job keys. */
export const REQUEST_DEPLOY_ID = 'approval_request_deploy';
export const REQUEST_SEND_ID = 'approval_request_send';

export interface ResultEntry extends TitleEntry {
  action: string;
  result?: ResultSpec;
}

export interface ResultOptions {
  /** The request's fields: values the record does not repeat, and which record fields only echo them. */
  fields?: Record<string, unknown>;
  /** A line under the card (a reconciliation found the record). */
  note?: string;
  /** The job whose result this is: a result whose next step is guarded offers it (approval-card.ts). */
  jobKey?: string;
  /** Names of the ids the record carries (its category, its author): shown by name, the id beside it. */
  names?: ReferenceNames;
}

const TABLE_ROWS = 15;
/** Record fields that the card's last line shows, or that say nothing to a person. */
const FOOTER = new Set(['id', 'created_at', 'updated_at', 'client_id']);

function lookupOf(data: Record<string, unknown>, request: Record<string, unknown>): Lookup {
  return (name) => (data[name] !== undefined && data[name] !== null ? data[name] : request[name]);
}

/** The status message's summary of a result: "score 72/100 · 9 issues found". */
export function resultSummary(
  entry: ResultEntry,
  data: Record<string, unknown>,
  request: Record<string, unknown> = {},
): string | undefined {
  const spec = entry.result;
  const filled = spec ? fillTemplate(spec.summary, lookupOf(data, request), ' · ') : '';
  return filled || undefined;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Monospace columns; numbers right-aligned. */
function tableText(rows: Record<string, unknown>[], columns: ResultFieldSpec[]): string {
  const cells = rows.map((row) =>
    columns.map((c) => {
      const v = row[c.name];
      if (v === undefined || v === null) return '—';
      return c.kind === 'number' && typeof v === 'number'
        ? v.toLocaleString('en-US')
        : String(v).replace(/[`\n]/g, ' ');
    }),
  );
  const widths = columns.map((c, i) =>
    Math.min(40, Math.max(c.label.length, ...cells.map((r) => (r[i] ?? '').length))),
  );
  const line = (values: string[]) =>
    values
      .map((v, i) => {
        const w = widths[i] ?? 0;
        const cut = v.length > w ? `${v.slice(0, w - 1)}…` : v;
        return columns[i]?.kind === 'number' ? cut.padStart(w) : cut.padEnd(w);
      })
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.label)), ...cells.map(line)].join('\n');
}

function tableBlock(spec: ResultTableSpec, value: unknown): KnownBlock | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const rows = value.filter((r): r is Record<string, unknown> => !!r && typeof r === 'object');
  if (!rows.length) return undefined;
  const key = spec.sortBy;
  const sorted = key ? [...rows].sort((a, b) => (Number(b[key]) || 0) - (Number(a[key]) || 0)) : rows;
  const shown = sorted.slice(0, TABLE_ROWS);
  const noun = `${rows.length} ${spec.noun}${rows.length === 1 ? '' : 's'}`;
  const by = key ? `, by ${spec.columns.find((c) => c.name === key)?.label.toLowerCase() ?? key}` : '';
  const more = rows.length > shown.length ? `\n…and ${rows.length - shown.length} more` : '';
  // Escaped like any mrkdwn: Slack still reads `<…>` inside a code block.
  return section(`*${noun}*${by}\n\`\`\`${escapeMrkdwn(tableText(shown, spec.columns))}\`\`\`${more}`);
}

/** A generic table for an array of records the spec does not describe: its first four scalar columns. */
function genericTable(name: string, value: unknown[]): KnownBlock | undefined {
  const rows = value.filter(
    (r): r is Record<string, unknown> => !!r && typeof r === 'object' && !Array.isArray(r),
  );
  if (!rows.length) return undefined;
  const names = [...new Set(rows.flatMap((r) => Object.keys(r)))]
    .filter((k) => rows.every((r) => r[k] === undefined || r[k] === null || typeof r[k] !== 'object'))
    .slice(0, 4);
  if (!names.length) return undefined;
  const columns: ResultFieldSpec[] = names.map((n) => ({
    name: n,
    label: humanize(n),
    ...(rows.every((r) => typeof r[n] === 'number' || r[n] === undefined) ? { kind: 'number' as const } : {}),
  }));
  return tableBlock({ field: name, columns, noun: humanize(name).toLowerCase().replace(/s$/, '') }, rows);
}

/** What the card's parts read: the record, the request, one lookup over both, and the fields already shown. */
interface CardSource {
  data: Record<string, unknown>;
  request: Record<string, unknown>;
  lookup: Lookup;
  names: ReferenceNames | undefined;
  /** Fields shown by the spec's parts (or never to be shown): the rest of the record is what is not here. */
  used: Set<string>;
}

export function buildActionResult(
  entry: ResultEntry,
  data: Record<string, unknown>,
  options: ResultOptions = {},
): SlackMessage {
  const request = options.fields ?? {};
  const source: CardSource = {
    data,
    request,
    lookup: lookupOf(data, request),
    names: options.names,
    used: new Set<string>(FOOTER),
  };
  const blocks = specBlocks(entry.result, source);
  const shown = specFields(entry.result, source);
  const rest = restOfRecord(source);
  blocks.push(...rest.tables);
  shown.push(...rest.shown);
  for (let i = 0; i < shown.length && i < 20; i += 10) blocks.push(fields(...shown.slice(i, i + 10)));

  const id = typeof data.id === 'string' || typeof data.id === 'number' ? String(data.id) : undefined;
  const notes = footerNotes(data, id, options.note);
  if (!blocks.length) blocks.push(section(`:white_check_mark: ${actionTitle(entry, request)}: done`));
  if (notes.length) blocks.push(context(notes.join(' · ')));
  // Follow-ups (a draft's "Request deploy", an email's "Send…") go last, as buttons keyed by the job.
  blocks.push(...guardedFollowUp(entry.action, options.jobKey));

  const summary = resultSummary(entry, data, request);
  const text = `${actionTitle(entry, request)}${summary ? `: ${summary}` : ''}${id ? ` (${escapeMrkdwn(id)})` : ''}`;
  return fitMessage({ text, blocks });
}

/** The spec's blocks, in order: the headline, the table, the bullets, the quote. */
function specBlocks(spec: ResultSpec | undefined, { data, request, lookup, used }: CardSource): KnownBlock[] {
  const blocks: KnownBlock[] = [];
  const headline = spec?.headline ? fillTemplate(spec.headline, lookup) : '';
  for (const part of [spec?.headline ?? []].flat())
    for (const m of part.matchAll(/\{([A-Za-z0-9_]+)/g)) used.add(m[1] ?? '');
  if (headline) blocks.push(section(headline));

  if (spec?.table) {
    used.add(spec.table.field);
    const table = tableBlock(spec.table, data[spec.table.field]);
    if (table) blocks.push(table);
  }
  if (spec?.bullets) {
    used.add(spec.bullets.field);
    const items = data[spec.bullets.field] ?? request[spec.bullets.field];
    const list = Array.isArray(items) ? items : typeof items === 'string' && items ? [items] : [];
    const lines = list.map((v) => `• ${showValue(v) ?? '—'}`);
    if (lines.length) blocks.push(section(`*${escapeMrkdwn(spec.bullets.label)}*\n${lines.join('\n')}`));
  }
  if (spec?.quote) {
    used.add(spec.quote);
    const text = data[spec.quote];
    if (typeof text === 'string' && text.trim()) {
      blocks.push(section(escapeMrkdwn(truncate(text.trim(), 2_800)).replace(/^/gm, '>')));
    }
  }
  return blocks;
}

/** The spec's labelled fields that have a value, as field texts (an id shown by its name when known). */
function specFields(spec: ResultSpec | undefined, { lookup, names, used }: CardSource): string[] {
  const shown: string[] = [];
  for (const f of spec?.fields ?? []) {
    used.add(f.name);
    const value =
      namedId(names, f.name, lookup(f.name)) ?? formatKind(lookup(f.name), f.kind, f.name, lookup);
    if (value !== undefined)
      shown.push(`*${escapeMrkdwn(f.label)}*\n${value}${escapeMrkdwn(f.suffix ?? '')}`);
  }
  return shown;
}

/**
 * What the spec does not name: the rest of the record, unless it only echoes the request. The first array of
 * records becomes a table; everything else a labelled field.
 */
function restOfRecord({ data, request, names, used }: CardSource): { tables: KnownBlock[]; shown: string[] } {
  const tables: KnownBlock[] = [];
  const shown: string[] = [];
  for (const [name, value] of Object.entries(data)) {
    if (used.has(name) || name.startsWith('__') || value === null || value === undefined || value === '')
      continue;
    if (name in request && same(request[name], value)) continue;
    if (Array.isArray(value) && value.some((v) => v && typeof v === 'object')) {
      const table = genericTable(name, value);
      if (table && !tables.length) {
        tables.push(table);
        continue;
      }
    }
    const byName = namedId(names, name, value);
    const label = byName ? (names?.[name]?.label ?? humanize(name)) : humanize(name);
    const text = byName ?? showValue(value, name);
    if (text !== undefined) shown.push(`*${escapeMrkdwn(label)}*\n${text}`);
  }
  return { tables, shown };
}

/** The card's last line: the record's id, when it was created, and the caller's note. */
function footerNotes(
  data: Record<string, unknown>,
  id: string | undefined,
  note: string | undefined,
): string[] {
  const notes: string[] = [];
  if (id) notes.push(`Record ${code(id)}`);
  const created = slackDate(data.created_at);
  if (created) notes.push(`created ${created}`);
  if (note) notes.push(escapeMrkdwn(note));
  return notes;
}

/** The follow-up a result offers when its next step is guarded: deploy a drafted post, send a drafted email. */
function guardedFollowUp(action: string, jobKey: string | undefined): KnownBlock[] {
  if (!jobKey) return [];
  if (action === 'generate_blog')
    return [
      actions(
        'keep:follow_up',
        button({ text: 'Request deploy', actionId: REQUEST_DEPLOY_ID, value: jobKey }),
      ),
    ];
  if (action === 'generate_outreach_email')
    return [actions('keep:follow_up', button({ text: 'Send…', actionId: REQUEST_SEND_ID, value: jobKey }))];
  return [];
}
