import type { KeywordMove, RankingDiff } from '../digests/rankings.js';
import { context, type KnownBlock, section } from './blocks.js';
import {
  count,
  type DigestMessage,
  type DigestPost,
  formatWhen,
  listMessage,
  plural,
} from './digest-common.js';
import { escapeMrkdwn } from './escape.js';
import { fitMessage } from './limits.js';

/**
 * The rankings digest: in the channel, what needs a person (keywords out of the top 10) and the biggest movers
 * (by change × √search volume, and the thread says so too); in the thread, every listed move with its
 * crossings, best ever and sparkline. Keywords that did not move are counted, never listed.
 */

const BARS = ['▁', '▂', '▃', '▅', '▇'];

/** A text sparkline of positions, oldest first: a better (smaller) position is a taller bar. */
export function sparkline(positions: readonly number[]): string {
  if (positions.length < 2) return '';
  const lo = Math.min(...positions);
  const hi = Math.max(...positions);
  return positions
    .map((p) => BARS[hi === lo ? 2 : Math.round(((hi - p) / (hi - lo)) * (BARS.length - 1))])
    .join('');
}

const LEAD_MAX = 3;
/** The order movers are listed in, as `diffRankings` weighs them: said wherever they are listed. */
const MOVER_ORDER = 'change × √search volume';
const MOVERS_MAX = 150;
const LIST_MAX = 50;

const arrow = (change: number) => (change > 0 ? `▲${change}` : `▼${-change}`);

function moveLine(m: KeywordMove): string {
  const parts = [`*${escapeMrkdwn(m.keyword)}* ${m.from} → ${m.to} (${arrow(m.change)})`];
  if (m.volume) parts.push(`vol ${count(m.volume)}`);
  parts.push(m.newBest ? ':trophy: new best' : `best #${m.best}`);
  if (m.crossings.length) parts.push(`_${m.crossings.join(', ')}_`);
  const spark = sparkline(m.spark);
  if (spark) parts.push(`\`${spark}\``);
  return parts.join(' · ');
}

interface RankingsDigestInput {
  clientLabel: string;
  since: string;
  tz: string;
  diff: RankingDiff;
  filters: string;
}

export function buildRankingsDigest(input: RankingsDigestInput): DigestPost {
  const { diff } = input;
  const label = escapeMrkdwn(input.clientLabel);
  const all = [...diff.fellOut, ...diff.moved];
  const up = all.filter((m) => m.change > 0).length;
  const down = all.length - up;
  const blocks: KnownBlock[] = [
    ...fellOutLead(diff),
    section(headLine(input, label, all, { up, down })),
    ...moversLead(diff),
    context(summaryNotes(input)),
  ];
  const text = `Rankings for ${label}: ${count(up)} up, ${count(down)} down${diff.fellOut.length ? `, ${count(diff.fellOut.length)} out of the top 10` : ''}`;
  return { summary: fitMessage({ text, blocks }), details: detailMessages(diff) };
}

/** The summary's head: whose rankings since when, the tallies, and the top-3/10 entries and new bests. */
function headLine(
  input: RankingsDigestInput,
  label: string,
  all: readonly KeywordMove[],
  { up, down }: { up: number; down: number },
): string {
  const { diff } = input;
  const entered = all.filter((m) => m.crossings.some((c) => c.startsWith('entered'))).length;
  const bests = all.filter((m) => m.newBest).length;
  const tallies = [`▲ ${count(up)} up`, `▼ ${count(down)} down`];
  if (diff.added.length) tallies.push(`${count(diff.added.length)} new`);
  if (diff.dropped.length) tallies.push(`${count(diff.dropped.length)} no longer tracked`);
  tallies.push(`${count(diff.unchanged)} unchanged`);
  const extras: string[] = [];
  if (entered) extras.push(`${plural(entered, 'keyword')} entered the top 3 or 10`);
  if (bests) extras.push(`${plural(bests, 'new best', 'new bests')}`);
  return `:chart_with_upwards_trend: *Rankings for ${label}* since ${escapeMrkdwn(formatWhen(input.since, input.tz))}: ${tallies.join(' · ')}${extras.length ? `\n${extras.join(' · ')}` : ''}`;
}

/** What needs a person, above everything: the first keywords that fell out of the top 10 (none: no block). */
function fellOutLead(diff: RankingDiff): KnownBlock[] {
  if (!diff.fellOut.length) return [];
  const lead = diff.fellOut.slice(0, LEAD_MAX).map(moveLine).join('\n');
  const more =
    diff.fellOut.length > LEAD_MAX
      ? `\n…and ${count(diff.fellOut.length - LEAD_MAX)} more in the thread`
      : '';
  return [section(`🚨 *${plural(diff.fellOut.length, 'keyword')} fell out of the top 10*\n${lead}${more}`)];
}

/** The biggest movers, in the order they are weighed (none moved: no block). */
function moversLead(diff: RankingDiff): KnownBlock[] {
  if (!diff.moved.length) return [];
  return [
    section(
      `*Biggest movers* (by ${MOVER_ORDER})\n${diff.moved.slice(0, LEAD_MAX).map(moveLine).join('\n')}`,
    ),
  ];
}

/** The summary's closing note: the thread has the details, and what the filters did. */
function summaryNotes(input: RankingsDigestInput): string {
  const notes = ['The details are in the thread.'];
  if (input.filters)
    notes.push(`Filters: \`${input.filters}\` (keywords that fall out of the top 10 always show).`);
  if (input.diff.filteredOut)
    notes.push(`${plural(input.diff.filteredOut, 'other move')} left out by the filters.`);
  return notes.join(' ');
}

/** The thread: every keyword that fell out, moved, was added or is no longer tracked, a list each. */
function detailMessages(diff: RankingDiff): DigestMessage[] {
  const details: DigestMessage[] = [];
  const more = (n: number) => `…and ${count(n)} more. \`/gateway keywords\` lists every keyword.`;
  if (diff.fellOut.length) {
    details.push(
      listMessage(`*Fell out of the top 10* (${count(diff.fellOut.length)})`, diff.fellOut, moveLine, {
        maxLines: LIST_MAX,
        more,
      }),
    );
  }
  if (diff.moved.length) {
    details.push(
      listMessage(
        `*Moves, by ${MOVER_ORDER}, largest first* (${count(diff.moved.length)})`,
        diff.moved,
        moveLine,
        {
          maxLines: MOVERS_MAX,
          more,
        },
      ),
    );
  }
  if (diff.added.length) {
    const line = (k: RankingDiff['added'][number]) =>
      `*${escapeMrkdwn(k.keyword)}* at #${k.position}${k.volume ? ` · vol ${count(k.volume)}` : ''}`;
    details.push(
      listMessage(`*New keywords* (${count(diff.added.length)})`, diff.added, line, {
        maxLines: LIST_MAX,
        more,
      }),
    );
  }
  if (diff.dropped.length) {
    const line = (k: RankingDiff['dropped'][number]) => `*${escapeMrkdwn(k.keyword)}* (was #${k.position})`;
    details.push(
      listMessage(`*No longer tracked* (${count(diff.dropped.length)})`, diff.dropped, line, {
        maxLines: LIST_MAX,
        more,
      }),
    );
  }
  return details;
}
