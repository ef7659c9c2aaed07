import type { ActionJobData, ApprovalHooks, JobEnd } from '../jobs/index.js';
import { failureCode } from '../jobs/index.js';
import { slackReplyTarget, type ThreadOutbound } from '../slack/reply-target.js';
import { buildApprovalCard } from '../views/approval-card.js';
import { approvalAllowsRun } from './approval-gate.js';
import type { ApprovalStore } from './approval-store.js';
import type { ApprovalRecord } from './record.js';

/**
 * The outcome on the card: every transition (a decision, the expiry, the approved job's end) is shown through
 * showOnCard, and the approved job's end (done, failed) is written to its approval first.
 */

/** Shows the record's state on its card (a no-op before the card was posted): the one way a card is updated. */
export async function showOnCard(outbound: ThreadOutbound, record: ApprovalRecord): Promise<void> {
  if (!record.cardTs) return;
  await outbound.update(slackReplyTarget(record.channel), record.cardTs, buildApprovalCard(record));
}

/**
 * An approved job ended: running → done | failed on its approval, shown on the card (a failure with Retry,
 * which only approvers may press). A job whose approval is not running for it changes nothing.
 */
async function reportApprovalOutcome(
  deps: { store: ApprovalStore; outbound: ThreadOutbound },
  data: ActionJobData,
  ended: JobEnd,
): Promise<void> {
  if (!data.approval) return;
  const { store } = deps;
  const done = 'outcome' in ended && ended.outcome.outcome === 'done';
  const note = done ? '' : 'outcome' in ended ? 'outcome_unknown' : failureCode(ended.error);
  const recordId = 'outcome' in ended ? ended.outcome.recordId : undefined;
  const result = await store.transition(data.approval.id, data.replyTo.channel, done ? 'done' : 'failed', {
    actor: 'worker',
    jobKey: data.jobKey,
    note,
    ...(recordId ? { recordId } : {}),
  });
  if (result.ok) await showOnCard(deps.outbound, result.record);
}

/**
 * The approval of a cancelled approved job: approved → cancelled for this very job (the transition checks its
 * key), audited, its payload free to be asked for again, and its card saying who cancelled it.
 */
async function cancelApprovalOf(
  deps: { store: ApprovalStore; outbound: ThreadOutbound },
  data: ActionJobData,
  by: string,
): Promise<void> {
  if (!data.approval) return;
  const result = await deps.store.transition(data.approval.id, data.replyTo.channel, 'cancelled', {
    actor: by,
    jobKey: data.jobKey,
  });
  if (!result.ok) throw new Error(`approval ${data.approval.id} stays ${result.state}`);
  await showOnCard(deps.outbound, result.record);
}

/** The approvals feature's side of the action queue: its gate, the outcome on the card and a cancelled run. */
export function approvalHooks(store: ApprovalStore, outbound: ThreadOutbound): ApprovalHooks {
  return {
    allowsRun: (data) => approvalAllowsRun(store, data),
    ended: (data, ended) => reportApprovalOutcome({ store, outbound }, data, ended),
    cancelled: (data, by) => cancelApprovalOf({ store, outbound }, data, by),
  };
}
