import type { ApprovalRecord } from '../approvals/record.js';
import { emailCardBlocks } from './approval-email.js';
import { viewButton } from './approval-post.js';
import type { Button, KnownBlock, SlackMessage } from './blocks.js';
import { actions, button, context, plain, section } from './blocks.js';
import { analyseEmail } from './email-content.js';
import { code, escapeMrkdwn, oneLine, quoted } from './escape.js';
import { fitMessage } from './limits.js';
import { signoffSteps } from './signoff-steps.js';
import { waiveButton } from './signoff-waiver.js';

/**
 * The approval card: what will run, for which client, who asked, the frozen payload and its
 * hash, when it expires; Approve (behind Slack's confirm dialog), Reject and Cancel while it is pending; then
 * who decided and when, and the outcome (a failure with Retry). Button values are approval ids. Pure.
 */

export const APPROVAL_APPROVE_ID = 'approval_approve';
export const APPROVAL_REJECT_ID = 'approval_reject';
export const APPROVAL_CANCEL_ID = 'approval_cancel';
export const APPROVAL_RETRY_ID = 'approval_retry';

/** A time as the card shows it: UTC, to the minute (no `<!date>` entity, which some clients show raw). */
export function cardTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

function payloadLines(record: ApprovalRecord): string[] {
  const p = record.preview;
  if (p.kind === 'deploy') {
    const title = p.postTitle ? `*${escapeMrkdwn(p.postTitle)}* ` : '';
    return [`*Post:* ${title}(${code(p.postId)})`];
  }
  if (p.kind === 'email') {
    const preview = p.text ? `\n${quoted(escapeMrkdwn(p.text))}` : '';
    return [
      `*To:* ${oneLine(escapeMrkdwn(p.to))}`,
      `*Subject:* ${oneLine(escapeMrkdwn(p.subject))}${preview}`,
    ];
  }
  return p.lines.map(fieldLine);
}

/**
 * One `name: value` line of the frozen payload; a value of several lines (a prompt, a transcript) is quoted below
 * its name, so none of its lines can pass for one of the card's.
 */
function fieldLine(line: string): string {
  const at = line.indexOf(': ');
  const value = at > 0 ? line.slice(at + 2) : line;
  if (oneLine(value) === value) return escapeMrkdwn(line);
  return `${at > 0 ? `${escapeMrkdwn(line.slice(0, at))}:` : ''}\n${quoted(escapeMrkdwn(value))}`;
}

/** An email's links and what it loads, read from the frozen html itself: what the approver sees is what is sent. */
function emailBlocks(record: ApprovalRecord): KnownBlock[] {
  if (record.preview.kind !== 'email') return [];
  const html = typeof record.fields.html === 'string' ? record.fields.html : '';
  return emailCardBlocks(analyseEmail(html), record.preview.text);
}

/** The warning a card carries when this exact payload already ran in the channel. */
function ranBeforeLine(record: ApprovalRecord): string[] {
  const ran = record.ranBefore;
  if (!ran) return [];
  const what = ran.recordId
    ? `record ${code(ran.recordId)}, approval ${code(ran.id)}`
    : `approval ${code(ran.id)}`;
  return [
    `:warning: *This exact payload already ran* here at ${cardTime(ran.at)} (${what}). Approving runs it again.`,
  ];
}

/** To the person whose request is identical to one in flight: where that request's card is; no new card. */
export function buildAlreadyPending(record: ApprovalRecord, permalink: string | undefined): SlackMessage {
  const waiting = record.state === 'pending';
  const line = waiting
    ? 'The same request is already waiting for an approver, so I did not post a second card.'
    : 'The same request was already approved and is running, so I did not post a second card.';
  const card = permalink
    ? `<${permalink}|The card>`
    : `The card${record.cardTs ? ` posted at ${cardTime(Number(record.cardTs) * 1000)}` : ''} in this channel`;
  const hint = `${card} was asked for by <@${record.requestedBy}> at ${cardTime(record.createdAt)} (approval ${code(record.id)}, payload hash ${code(record.hash.slice(0, 12))}).${waiting ? ' An approver decides there.' : ''}`;
  return fitMessage({
    text: `:information_source: ${line}`,
    blocks: [section(`:information_source: *${line}*`), context(hint)],
  });
}

/** Where an approval stands, in one line: who decided and when, or when it expires. */
export function decision(record: ApprovalRecord): string {
  const by = record.decidedBy ? `<@${record.decidedBy}>` : 'nobody';
  const at = record.decidedAt ? ` at ${cardTime(record.decidedAt)}` : '';
  switch (record.state) {
    case 'pending':
      return `:lock: Waiting for ${record.signoff ? 'sign-off' : 'an approver'} · expires ${cardTime(record.expiresAt)}`;
    case 'approved':
      return `:white_check_mark: Approved by ${by}${at} · queued`;
    case 'running':
      return `:white_check_mark: Approved by ${by}${at} · running`;
    case 'done':
      return `:white_check_mark: Approved by ${by}${at} · done${record.recordId ? ` · record ${code(record.recordId)}` : ''}`;
    case 'failed':
      return `:x: Approved by ${by}${at} · failed${record.outcome ? ` (${code(record.outcome)})` : ''}: see the job’s thread. An approver may retry it.`;
    case 'rejected':
      return `:no_entry: Rejected by ${by}${at}. Nothing was run.`;
    case 'cancelled':
      if (record.cancelledBy) {
        const when = record.cancelledAt ? ` at ${cardTime(record.cancelledAt)}` : '';
        return `✖️ Approved by ${by}${at}, then cancelled by <@${record.cancelledBy}>${when} before it started. Nothing was run.`;
      }
      return `✖️ Cancelled by ${by}${at}. Nothing was run.`;
    case 'expired':
      return `:hourglass: Expired at ${cardTime(record.expiresAt)} without a decision. Nothing was run; ask again to run it.`;
  }
}

/** Approve behind Slack's confirm dialog, with the action id of the surface it is on. */
export function approveButton(id: string, actionId = APPROVAL_APPROVE_ID): Button {
  return {
    ...button({ text: 'Approve', actionId, value: id, style: 'primary' }),
    confirm: {
      title: plain('Run it now?'),
      text: plain('It runs exactly as shown on the card, once.'),
      confirm: plain('Approve'),
      deny: plain('Not yet'),
    },
  };
}

/** The card's first words: what it asks while pending, then where it stands (the line below says by whom). */
const HEADING: Record<ApprovalRecord['state'], string> = {
  pending: 'Approval needed',
  approved: 'Approved',
  running: 'Approved, running',
  done: 'Approved and done',
  failed: 'Approved, failed',
  rejected: 'Rejected',
  cancelled: 'Cancelled',
  expired: 'Expired',
};

export function buildApprovalCard(record: ApprovalRecord): SlackMessage {
  const what = `${escapeMrkdwn(record.label)} (${code(record.action)}) for *${escapeMrkdwn(record.clientLabel)}*, requested by <@${record.requestedBy}>${record.viaAssistant ? ' through an assistant' : ''}`;
  const blocks: KnownBlock[] = [
    section(`*${HEADING[record.state]}:* ${what}`),
    section([...payloadLines(record), ...ranBeforeLine(record)].join('\n')),
    ...emailBlocks(record),
    context(
      `Payload hash ${code(record.hash.slice(0, 12))} · requested ${cardTime(record.createdAt)} · approval ${code(record.id)}`,
    ),
    section(decision(record)),
  ];
  const steps = signoffSteps(record);
  if (steps) blocks.push(section(steps));
  if (record.state === 'pending') {
    blocks.push(
      actions(
        `keep:approval:${record.id}`,
        approveButton(record.id),
        button({ text: 'Reject', actionId: APPROVAL_REJECT_ID, value: record.id, style: 'danger' }),
        button({ text: 'Cancel', actionId: APPROVAL_CANCEL_ID, value: record.id }),
        ...viewButton(record),
        ...waiveButton(record),
      ),
    );
  } else if (record.state === 'failed') {
    blocks.push(
      actions(
        `keep:approval:${record.id}`,
        button({ text: 'Retry', actionId: APPROVAL_RETRY_ID, value: record.id }),
      ),
    );
  }
  const text = `${record.state === 'pending' ? 'Approval needed' : `Approval ${record.state}`}: ${escapeMrkdwn(record.label)} for ${escapeMrkdwn(record.clientLabel)}`;
  return fitMessage({ text, blocks });
}

/** A Slack id as a mention; anything that is not an id is shown as code, never as markup. */
function mention(id: string): string {
  if (/^[UW][A-Z0-9]{1,20}$/.test(id)) return `<@${id}>`;
  if (/^S[A-Z0-9]{1,20}$/.test(id)) return `<!subteam^${id}>`;
  return code(id);
}

const DECIDED: Record<ApprovalRecord['state'], string> = {
  pending: 'is still waiting',
  approved: 'was already approved',
  running: 'was already approved and is running',
  done: 'was already approved and has run',
  failed: 'was approved and failed',
  rejected: 'was already rejected',
  cancelled: 'was already cancelled',
  expired: 'has expired',
};

export type ApprovalRefusal =
  | { kind: 'not-approver'; approvers: readonly string[] }
  /** `others`: the approvers besides the requester (none: nobody can approve it); `admin`: the requester is one. */
  | { kind: 'self'; others: readonly string[]; admin: boolean }
  | { kind: 'not-requester'; requestedBy: string }
  /** An agency approver's Approve on a request that waits for the client's sign-off. */
  | { kind: 'client-decides'; clientApprovers: readonly string[] }
  /** Someone of another workspace who may not decide this request (or not from where they clicked). */
  | { kind: 'outsider' }
  /** The clicker's step (the agency's, the client's) was already decided. */
  | { kind: 'stepped'; record: Pick<ApprovalRecord, 'agencyBy' | 'clientBy' | 'waivedBy'> }
  | {
      kind: 'decided';
      record: Pick<ApprovalRecord, 'state' | 'decidedBy' | 'decidedAt' | 'cancelledBy' | 'cancelledAt'>;
    };

/** Why a click on a card did nothing, naming the people who can act (as mentions, so they can be asked). */
export function buildApprovalRefusal(refusal: ApprovalRefusal): SlackMessage {
  let line: string;
  let hint: string;
  switch (refusal.kind) {
    case 'not-approver':
      line = 'Only approvers can decide on this request.';
      hint = refusal.approvers.length
        ? `Approvers: ${refusal.approvers.map(mention).join(', ')}. Ask one of them to look at the card.`
        : 'No approvers are configured: set GATEWAY_APPROVERS (or GATEWAY_ADMINS).';
      break;
    case 'self':
      if (refusal.others.length) {
        line = 'You asked for this, so another approver must decide on it.';
        hint = `Approvers: ${refusal.others.map(mention).join(', ')}. Ask one of them to look at the card.`;
      } else {
        // The only approver asked: nobody can approve it until an admin changes who may.
        line = 'You asked for this and you are the only approver, so nobody can approve it yet.';
        hint = `Nothing runs until someone else can approve it. ${refusal.admin ? 'As an admin, you' : 'An admin'} can add approvers (GATEWAY_APPROVERS) or allow requesters to approve their own requests (GATEWAY_ALLOW_SELF_APPROVAL=true) in the bot's configuration. Cancel the card if it is no longer needed.`;
      }
      break;
    case 'not-requester':
      line = `Only ${mention(refusal.requestedBy)}, who asked, can cancel this request.`;
      hint = 'An approver can reject it instead.';
      break;
    case 'client-decides':
      line = 'This request waits for the client’s sign-off.';
      hint = refusal.clientApprovers.length
        ? `Client approvers: ${refusal.clientApprovers.map(mention).join(', ')}. You can still reject it; an admin can waive the client’s sign-off.`
        : 'No client approver is named: an admin names one with `/gateway signoff add @person`, or waives the client’s sign-off.';
      break;
    case 'outsider':
      line = 'You cannot decide on this request.';
      hint =
        'Only the people this channel named for its client’s sign-off can, on that client’s cards, in this channel.';
      break;
    case 'stepped':
      line = 'That step of the sign-off was already decided.';
      hint = 'The request now waits for the other side’s decision; the card shows who may still decide.';
      break;
    case 'decided': {
      const { record } = refusal;
      // An approved run cancelled before it started: the one who cancelled it, not the approver.
      const who = record.state === 'cancelled' && record.cancelledBy ? record.cancelledBy : record.decidedBy;
      const when = record.state === 'cancelled' && record.cancelledBy ? record.cancelledAt : record.decidedAt;
      const by = who && record.state !== 'expired' ? ` by ${mention(who)}` : '';
      const at = when ? ` at ${cardTime(when)}` : '';
      line = `This request ${DECIDED[record.state]}${by}${at}.`;
      hint = ['rejected', 'cancelled', 'expired'].includes(record.state)
        ? 'Nothing was run. Ask again with the command to run it.'
        : 'It runs once; nothing more was queued.';
      break;
    }
  }
  return fitMessage({ text: `:warning: ${line}`, blocks: [section(`:warning: *${line}*`), context(hint)] });
}
