import type { KnownBlock } from './blocks.js';
import { context, section } from './blocks.js';
import { escapeMrkdwn } from './escape.js';
import { fitMessage, MAX_BLOCKS_MESSAGE, MAX_SECTION_TEXT } from './limits.js';

/** What every digest view returns: one short message for the channel, the detail for its thread. */
export interface DigestMessage {
  text: string;
  blocks: KnownBlock[];
}

export interface DigestPost {
  summary: DigestMessage;
  details: DigestMessage[];
}

/** Room left in a section after a line break and a margin for the fit's own markers. */
const SECTION_ROOM = MAX_SECTION_TEXT - 100;

/**
 * A titled list for a thread message: the lines packed into sections of at most 3,000 characters, at most
 * `maxLines` of them and within Slack's 50 blocks, then a line that says how many more there are and where.
 */
export function listMessage<T>(
  title: string,
  items: readonly T[],
  format: (item: T) => string,
  options: { maxLines: number; more: (n: number) => string },
): DigestMessage {
  const blocks: KnownBlock[] = [section(title)];
  let shown = 0;
  let current = '';
  const room = MAX_BLOCKS_MESSAGE - 2;
  // Only the items shown are formatted: a digest of 20,000 moves formats 150 lines, not 20,000.
  for (const item of items) {
    if (shown >= options.maxLines) break;
    const line = format(item);
    const piece = line.length > SECTION_ROOM ? `${line.slice(0, SECTION_ROOM - 1)}…` : line;
    if (current && current.length + 1 + piece.length > SECTION_ROOM) {
      if (blocks.length >= room) break;
      blocks.push(section(current));
      current = '';
    }
    current = current ? `${current}\n${piece}` : piece;
    shown++;
  }
  if (current && blocks.length < room) blocks.push(section(current));
  else if (current) shown -= current.split('\n').length;
  const rest = items.length - shown;
  if (rest > 0) blocks.push(context(options.more(rest)));
  return fitMessage({ text: title.replace(/\*/g, ''), blocks });
}

export const count = (n: number) => n.toLocaleString('en-US');

export const plural = (n: number, one: string, many = `${one}s`) => `${count(n)} ${n === 1 ? one : many}`;

/**
 * A time left, to the second and never rounded up to a larger unit: `1 s`, `45 s`, `4 min 59 s`, `2 h 5 min`
 * (a cooldown of one second must not read as "a minute").
 */
export function timeLeft(ms: number): string {
  const s = Math.max(1, Math.ceil(ms / 1_000));
  if (s < 60) return `${s} s`;
  if (s < 3_600) return s % 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s / 60} min`;
  const min = Math.ceil(s / 60);
  return min % 60 ? `${Math.floor(min / 60)} h ${min % 60} min` : `${min / 60} h`;
}

/** `2025-06-30T12:00:00Z` → `Mon 30 Jun 2025, 12:00 UTC`; a plain date stays a date. */
export function formatWhen(iso: string, tz = 'UTC'): string {
  const at = Date.parse(iso);
  if (!iso || Number.isNaN(at)) return iso || 'the start';
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(iso);
  const options: Intl.DateTimeFormatOptions = dateOnly
    ? { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' }
    : {
        weekday: 'short',
        day: 'numeric',
        month: 'short',
        hour: '2-digit',
        minute: '2-digit',
        hour12: false,
        timeZone: tz,
        timeZoneName: 'short',
      };
  return new Intl.DateTimeFormat('en-GB', options).format(at);
}

/** The baseline a first digest records instead of flooding the channel. */
export function buildDigestBaseline(input: {
  kind: 'reviews' | 'rankings';
  clientLabel: string;
  tracked: number;
  /** Rankings: every keyword of the client (what `/gateway keywords` counts) and those not tracked. */
  census?: { all: number; paused: number; unranked: number };
}): DigestMessage {
  const what = input.kind === 'reviews' ? plural(input.tracked, 'review') : plural(input.tracked, 'keyword');
  const { census } = input;
  let of = '';
  if (census && census.all !== input.tracked) {
    const untracked: string[] = [];
    if (census.paused) untracked.push(`${count(census.paused)} ${census.paused === 1 ? 'is' : 'are'} paused`);
    if (census.unranked)
      untracked.push(`${count(census.unranked)} ${census.unranked === 1 ? 'has' : 'have'} no position yet`);
    of = ` (of ${count(census.all)}: ${untracked.join(', ')})`;
  }
  const text = `🔖 *${input.kind === 'reviews' ? 'Reviews' : 'Rankings'} digest for ${escapeMrkdwn(input.clientLabel)}*: tracking ${what} from now on${of}. The next digest lists what changes.`;
  return fitMessage({ text, blocks: [section(text)] });
}

/** `digest now` with nothing new: for the person who asked only. */
export function buildNothingNew(input: {
  kind: 'reviews' | 'rankings';
  since: string;
  tz: string;
}): DigestMessage {
  const what = input.kind === 'reviews' ? 'no new reviews' : 'no ranking changes';
  const text = `:zzz: Nothing new since ${formatWhen(input.since, input.tz)}: ${what}${input.kind === 'reviews' ? '' : ' that the filters let through'}.`;
  return fitMessage({ text, blocks: [section(text)] });
}

/** Told once when a scheduled digest fails for good; the next run tries again. */
export function buildDigestFailure(input: { kind: 'reviews' | 'rankings'; problem: string }): DigestMessage {
  const text = `:warning: The ${input.kind} digest could not be built: ${input.problem}. I will try again at its next run and will not repeat this message; \`/gateway digest status\` shows how it is doing.`;
  return fitMessage({ text, blocks: [section(text)] });
}
