import type { Token } from '../actions/index.js';
import {
  canonicalTimeZone,
  DEFAULT_TIME,
  type DigestFilters,
  type DigestKind,
  FILTER_EXAMPLES,
  FilterError,
  isTimeZone,
  parseFilters,
  parseTimeOfDay,
  parseWeekday,
  type Schedule,
  type TypedFilter,
  type WEEKDAYS,
} from '../digests/index.js';
import { UserError, UserErrorCode } from '../requests/index.js';

/**
 * `/gateway digest …` arguments:
 *   digest reviews|rankings daily|weekly <day>|off [HH:MM] [filters] [tz=Zone]
 *   digest now reviews|rankings
 *   digest status
 * Every mistake is a UserError with the usage and an example to copy.
 */

export type DigestArgs =
  | { action: 'subscribe'; kind: DigestKind; schedule: Schedule; tz?: string; filters: DigestFilters }
  | { action: 'off'; kind: DigestKind }
  | { action: 'now'; kind: DigestKind }
  | { action: 'status'; ignored: readonly Token[] };

export const DIGEST_USAGE =
  '/gateway digest reviews|rankings daily|weekly <day>|off [HH:MM] [filters] [tz=Area/City]';

const KINDS: readonly DigestKind[] = ['reviews', 'rankings'];
const FILTER_WORD = /^([A-Za-z_]+)(<=|<|~|=)(.*)$/;

const bad = (title: string, example: string, usage = DIGEST_USAGE) =>
  new UserError(UserErrorCode.BadArguments, title, { usage, hint: `For example: \`${example}\`` });

const text = (t: Token) => (t.kind === 'word' ? t.value : `${t.name}=${t.value}`);

/** The kind named by a token; `now` asks only which (its example is a `now`), a subscription also when. */
function kindOf(token: Token | undefined, usage: string, forNow = false): DigestKind {
  const value = token?.kind === 'word' ? token.value.toLowerCase() : undefined;
  const kind = KINDS.find((k) => k === value || `${k.replace(/s$/, '')}` === value);
  if (!kind) {
    const typed = token ? ` not \`${text(token)}\`` : '';
    throw bad(
      `Which digest? \`reviews\` or \`rankings\`${typed ? `,${typed}` : forNow ? '' : ', and when'}.`,
      forNow ? '/gateway digest now rankings' : FILTER_EXAMPLES.rankings,
      usage,
    );
  }
  return kind;
}

export function parseDigestArgs(args: readonly Token[]): DigestArgs {
  const [first, ...rest] = args;
  const word = first?.kind === 'word' ? first.value.toLowerCase() : undefined;
  if (!first || word === 'status' || word === 'list') {
    // Words after `status` are ignored, and the answer says so.
    return { action: 'status', ignored: first ? rest : [] };
  }
  if (word === 'now') {
    const usage = '/gateway digest now reviews|rankings';
    const kind = kindOf(rest[0], usage, true);
    if (rest.length > 1)
      throw bad('`digest now` takes only the kind.', '/gateway digest now rankings', usage);
    return { action: 'now', kind };
  }
  const kind = kindOf(first, DIGEST_USAGE);
  const [when, ...more] = rest;
  const schedule = when?.kind === 'word' ? when.value.toLowerCase() : undefined;
  if (schedule === 'off') {
    if (more.length) throw bad('`off` takes nothing after it.', `/gateway digest ${kind} off`);
    return { action: 'off', kind };
  }
  if (schedule !== 'daily' && schedule !== 'weekly') {
    throw bad(
      when
        ? `\`${text(when)}\` is not a schedule: say \`daily\`, \`weekly <day>\` or \`off\`.`
        : `When should the ${kind} digest come? Say \`daily\`, \`weekly <day>\` or \`off\`.`,
      FILTER_EXAMPLES[kind],
    );
  }
  return subscription(kind, schedule, more);
}

/** A subscription's words after its schedule: a time, a weekday, a time zone and filters, in any order. */
interface ScheduleWords {
  day?: (typeof WEEKDAYS)[number];
  at?: string;
  tz?: string;
  typed: TypedFilter[];
}

function subscription(kind: DigestKind, schedule: 'daily' | 'weekly', more: readonly Token[]): DigestArgs {
  const words: ScheduleWords = { typed: [] };
  for (const token of more) readWord(words, token, kind, schedule);
  const { day, at, tz } = words;
  if (schedule === 'weekly' && !day) {
    throw bad(
      '`weekly` needs a day (mon, tue, wed, thu, fri, sat, sun).',
      `/gateway digest ${kind} weekly mon 09:00`,
    );
  }
  let filters: DigestFilters;
  try {
    filters = parseFilters(kind, words.typed);
  } catch (error) {
    if (error instanceof FilterError) throw bad(error.message, error.example);
    throw error;
  }
  const time = at ?? DEFAULT_TIME;
  const parsed: Schedule =
    schedule === 'weekly' && day ? { kind: 'weekly', day, at: time } : { kind: 'daily', at: time };
  return { action: 'subscribe', kind, schedule: parsed, filters, ...(tz ? { tz } : {}) };
}

function readWord(words: ScheduleWords, token: Token, kind: DigestKind, schedule: 'daily' | 'weekly'): void {
  if (token.kind === 'pair' && token.name.toLowerCase() === 'tz') {
    words.tz = timeZoneOf(token.value, kind);
    return;
  }
  if (token.kind === 'pair') {
    words.typed.push({ name: token.name, op: '=', value: token.value });
    return;
  }
  const time = parseTimeOfDay(token.value);
  if (time && !words.at) {
    words.at = time;
    return;
  }
  const weekday = schedule === 'weekly' && !words.day ? parseWeekday(token.value) : undefined;
  if (weekday) {
    words.day = weekday;
    return;
  }
  const filter = FILTER_WORD.exec(token.value);
  if (filter) {
    words.typed.push({
      name: filter[1] as string,
      op: filter[2] as TypedFilter['op'],
      value: filter[3] as string,
    });
    return;
  }
  if (/^\d{1,2}([:.]\d{1,2})?$/.test(token.value) || /[ap]m$/i.test(token.value)) {
    throw bad(
      `\`${token.value}\` is not a time: use 24-hour \`HH:MM\`.`,
      `/gateway digest ${kind} ${schedule === 'weekly' ? 'weekly mon' : 'daily'} 17:30`,
    );
  }
  throw bad(
    schedule === 'weekly' && !words.day
      ? `\`${token.value}\` is not a day of the week (mon, tue, wed, thu, fri, sat, sun).`
      : `I do not understand \`${token.value}\`.`,
    FILTER_EXAMPLES[kind],
  );
}

function timeZoneOf(value: string, kind: DigestKind): string {
  if (!isTimeZone(value)) {
    throw bad(`\`${value}\` is not a time zone.`, `/gateway digest ${kind} daily 09:00 tz=Europe/Berlin`);
  }
  // `EST`, `PST`, `CET` are zones to Intl but fixed offsets or ambiguous to a person: a digest at 09:00
  // must follow the place's daylight saving time, so only Area/City names (and UTC) are taken.
  if (!value.includes('/') && value.toUpperCase() !== 'UTC') {
    throw bad(
      `\`${value}\` is an abbreviation, not a place: name the time zone as Area/City (UTC is fine too).`,
      `/gateway digest ${kind} daily 09:00 tz=America/New_York`,
    );
  }
  return canonicalTimeZone(value);
}
