import type { AuditEntry } from '../approvals/audit.js';
import type { ApprovalPreview } from '../approvals/record.js';
import { cardTime } from './approval-card.js';
import type { KnownBlock, SlackMessage } from './blocks.js';
import { actions, button, context, section } from './blocks.js';
import { code, escapeMrkdwn, oneLine } from './escape.js';
import { fitMessage } from './limits.js';

/** `/gateway history`: the channel's approvals and guarded actions from the audit log, newest first. Pure. */

export const HISTORY_OLDER_ID = 'approval_history_older';

/** What the step was, and by whom when a person took it (the worker and the expiry job are no actors). */
const STEP: Record<string, string> = {
  pending: 'requested',
  running: 'started',
  signed: 'signed off',
  waived: 'client sign-off waived',
};

/** A sign-off step's note names the decider's side: the client's approvers are named with their client. */
const SIDES = new Set(['agency', 'client']);

function step(e: AuditEntry): string {
  const what = `*${escapeMrkdwn(STEP[e.state] ?? e.state)}*`;
  if (!/^[UW][A-Z0-9]+$/.test(e.actor)) return what;
  const side =
    e.note === 'client'
      ? ` (${escapeMrkdwn(e.clientLabel || e.client)})`
      : e.note === 'agency'
        ? ' (agency)'
        : '';
  return `${what} by <@${e.actor}>${side}`;
}

/** What ran, in a few words: the post (title and id) or the email (recipient and subject). */
function whatRan(preview: ApprovalPreview | undefined): string {
  if (!preview) return '';
  if (preview.kind === 'deploy') {
    const title = preview.postTitle ? `“${escapeMrkdwn(preview.postTitle)}” ` : '';
    return ` · ${title}${code(preview.postId)}`;
  }
  if (preview.kind === 'email')
    return ` · to ${oneLine(escapeMrkdwn(preview.to))}: “${oneLine(escapeMrkdwn(preview.subject))}”`;
  return '';
}

export function buildApprovalHistory(
  entries: AuditEntry[],
  options: {
    more: boolean;
    page: number;
    /** Each approval's frozen payload as its card showed it (an approval whose record is gone: none). */
    previews?: ReadonlyMap<string, ApprovalPreview>;
  },
): SlackMessage {
  if (!entries.length) {
    const line =
      options.page > 1 ? 'No older entries.' : 'No approvals or guarded actions in this channel yet.';
    return { text: line, blocks: [section(line)] };
  }
  const lines = entries.map((e) => {
    const client = e.clientLabel ? `*${escapeMrkdwn(e.clientLabel)}*` : code(e.client);
    const note = e.note && !SIDES.has(e.note) ? ` · ${code(e.note)}` : '';
    const what = whatRan(options.previews?.get(e.approval));
    return `• ${cardTime(e.at)} · ${step(e)} · ${escapeMrkdwn(e.label)} for ${client}${what} · hash ${code(e.hash.slice(0, 12))} · ${code(e.approval)}${note}`;
  });
  const blocks: KnownBlock[] = [
    section(`*Approvals and guarded actions* · page ${options.page}`),
    section(lines.join('\n')),
    context(
      'Newest first. Each line is one step of an approval: who, what (the post or the email), when, payload hash, outcome.',
    ),
  ];
  const last = entries.at(-1);
  if (options.more && last) {
    blocks.push(
      actions(
        'keep:history',
        button({ text: 'Older', actionId: HISTORY_OLDER_ID, value: `${options.page + 1}:${last.id}` }),
      ),
    );
  }
  return fitMessage({ text: `Approvals and guarded actions, page ${options.page}`, blocks });
}
