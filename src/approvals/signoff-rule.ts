import type { SignoffOutcome } from '../metrics.js';
import { type ApprovalRecord, type FrozenClientApprover, signoffOf } from './record.js';

/**
 * Who may decide which step of an approval: the one rule, for the card's buttons and Home alike (decide.ts calls
 * it; surfaces only pass the click along). Pure: what Slack and the directory said is handed in.
 *
 * - `agency` (the default): an agency approver decides, as always.
 * - `client`: a named client approver approves or rejects; an agency approver may reject (the agency can always
 *   stop its own request) and an admin may waive the client's step.
 * - `both`: an agency approver and a client approver, in either order; either one's Reject ends it.
 *
 * A client approver decides only a pending request of the channel they were named in, for its client, while
 * still named there, from the workspace frozen with their name (users.info and the payload's `user.team_id`
 * must both say it), and never their own request. Anyone else of another workspace may decide nothing.
 */

/** A step of a sign-off: the agency's, the client's, or an admin's waiver of the client's. */
export type SignoffStep = 'agency' | 'client' | 'waive';

/** Who clicked, as Slack's payload says. */
export interface Clicker {
  userId: string;
  /** The payload's `user.team_id`. */
  teamId: string | undefined;
  channelId: string;
}

/** What the bot knows of the clicker besides the payload. */
export interface ClickerFacts {
  /** Of the app's own workspace (users.info). */
  home: boolean;
  /** Their workspaces, as users.info says. */
  teams: readonly string[];
  /** Named in GATEWAY_APPROVERS (people of the app's workspace only). */
  agencyApprover: boolean;
  /** Still named a client approver of the channel, for the record's client, now. */
  stillNamed: boolean;
}

export type SignoffVerdict =
  /** `step` undefined: a decision outside sign-off (a Retry of a failed run, any decision under `agency`… */
  { step: SignoffStep | undefined } | { refused: SignoffRefusal };

export type SignoffRefusal =
  /** Not someone who may decide this request at all. */
  | 'not-approver'
  /** An agency approver, but the request waits for the client's sign-off. */
  | 'client-decides'
  /** A client approver's own request. */
  | 'own-request'
  /** A client approver whose click did not come from their workspace, or another channel's card. */
  | 'not-here'
  /** A client approver's click on a request no longer pending: they are told how it ended. */
  | 'decided';

/** Which step `clicker` may decide, approving or rejecting (`to`), on `record`. */
export function signoffStep(
  record: ApprovalRecord,
  clicker: Clicker,
  facts: ClickerFacts,
  to: 'approved' | 'rejected',
): SignoffVerdict {
  if (!facts.home) return clientStep(record, clicker, facts);
  if (!facts.agencyApprover) return { refused: 'not-approver' };
  if (record.state !== 'pending' || signoffOf(record) === 'agency') return { step: 'agency' };
  if (signoffOf(record) === 'client' && to === 'approved') return { refused: 'client-decides' };
  return { step: 'agency' };
}

function clientStep(record: ApprovalRecord, clicker: Clicker, facts: ClickerFacts): SignoffVerdict {
  const named: FrozenClientApprover | undefined = (record.clientApprovers ?? []).find(
    (a) => a.userId === clicker.userId,
  );
  // Retry, and every request of a channel that asks no client sign-off, stay the agency's.
  if (!named || signoffOf(record) === 'agency' || !facts.stillNamed) return { refused: 'not-approver' };
  if (record.state !== 'pending') return { refused: 'decided' };
  if (clicker.channelId !== record.channel) return { refused: 'not-here' };
  if (clicker.teamId !== named.teamId || !facts.teams.includes(named.teamId)) return { refused: 'not-here' };
  if (record.requestedBy === clicker.userId) return { refused: 'own-request' };
  return { step: 'client' };
}

/** What a sign-off step did, for the metrics: approved (a step, or the whole), rejected, or waived. */
export function signoffOutcome(to: string, step: SignoffStep): SignoffOutcome {
  if (step === 'waive') return 'waived';
  const side = step === 'client' ? 'client' : 'agency';
  return to === 'rejected' ? `${side}_rejected` : `${side}_approved`;
}

/**
 * Who may open a sign-off card's View (the post it deploys): anyone of the agency the card is shown to, and a
 * client approver frozen into it, still named, on the card's own channel, from their own workspace.
 */
export function mayView(record: ApprovalRecord, clicker: Clicker, facts: ClickerFacts): boolean {
  if (facts.home) return true;
  const named = (record.clientApprovers ?? []).find((a) => a.userId === clicker.userId);
  return Boolean(
    named &&
      facts.stillNamed &&
      signoffOf(record) !== 'agency' &&
      clicker.channelId === record.channel &&
      clicker.teamId === named.teamId &&
      facts.teams.includes(named.teamId),
  );
}
