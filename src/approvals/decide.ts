import { UserError, UserErrorCode } from '../requests/index.js';
import type { CoreServices } from '../services.js';
import { slackReplyTarget } from '../slack/reply-target.js';
import { claimOnce } from '../store/index.js';
import type { ApprovalRefusal } from '../views/approval-card.js';
import { showOnCard } from './approval-outcome.js';
import type { ApprovalRecord, ApprovalState } from './record.js';
import { type ClickerFacts, type SignoffRefusal, type SignoffStep, signoffStep } from './signoff-rule.js';

/**
 * approvals/ owns the approval feature whole: records and their state machine, ask, decide, the worker's gate,
 * the outcome on the card, expiry and history; surfaces only read the payload, call these and answer.
 *
 * A person's decision on an approval: approve (and retry, the same decision on a failed run), reject, cancel.
 * Each is one transition of the state machine (transition.ts): of any number of concurrent clicks, on any number
 * of web processes, exactly one wins; the others are told who decided first. Approve then asks for the frozen
 * payload once, through the request layer. Whichever surface the click came from, this is the one way to decide.
 */

export type Decision = 'approved' | 'rejected' | 'cancelled';

export type DecideOutcome =
  | { kind: 'decided'; record: ApprovalRecord; from: ApprovalState }
  /** Nothing changed, and why, for the person. */
  | { kind: 'refused'; refusal: ApprovalRefusal }
  /** Approved, but the run could not be queued: the approval failed (the card says so), and this is why. */
  | { kind: 'not-queued'; error: unknown }
  /** A click already handled, delivered again (a replayed signed request): nothing to do or say. */
  | { kind: 'repeat' };

export interface DecideInput {
  id: string;
  /** The channel the decision came from: a card's button names its own channel's approval only. */
  channel: string;
  by: string;
  to: Decision;
  /** The click's own id (Slack's trigger id), when the surface has one: each click decides once. */
  click?: string;
  /** The workspace the click says it came from (the payload's `user.team_id`). */
  team?: string;
}

export type Deps = Pick<
  CoreServices,
  'approvals' | 'access' | 'config' | 'requests' | 'outbound' | 'logger' | 'redis' | 'bindings' | 'signoffs'
>;

/** Longer than Slack's five-minute window for a signed request's timestamp. */
const CLICK_CLAIM_SEC = 600;

export const gone = () =>
  new UserError(UserErrorCode.Expired, 'That approval request is no longer known.', {
    hint: 'Ask for the action again with its command.',
  });

/** A UserError when the approval is unknown (or another channel's); otherwise what happened. */
export async function decideApproval(deps: Deps, input: DecideInput): Promise<DecideOutcome> {
  return input.to === 'cancelled' ? cancel(deps, input) : decide(deps, input, input.to);
}

/**
 * A decision from a surface that is in no channel (the Home tab): the approval's own channel stands in for the
 * card's. The same use case, the same single winner, as a click on the card.
 */
export async function decideApprovalById(
  deps: Deps,
  input: Omit<DecideInput, 'channel'>,
): Promise<DecideOutcome> {
  const record = await deps.approvals.get(input.id);
  if (!record) throw gone();
  return decideApproval(deps, { ...input, channel: record.channel });
}

async function decide(deps: Deps, input: DecideInput, to: 'approved' | 'rejected'): Promise<DecideOutcome> {
  const { id, channel, by } = input;
  const record = await deps.approvals.get(id);
  if (!record || record.channel !== channel) throw gone();
  const verdict = signoffStep(
    record,
    { userId: by, teamId: input.team, channelId: channel },
    await factsOf(deps, record, by),
    to,
  );
  if ('refused' in verdict)
    return { kind: 'refused', refusal: await stepRefusal(deps, record, by, verdict.refused) };
  // A Retry is legal again whenever the retried run fails, so without this claim a captured signed click
  // replayed within Slack's five minutes would start another run (Approve shares it: it costs one SET).
  const key = `approval-click:${id}:${input.click}`;
  if (
    to === 'approved' &&
    input.click &&
    !(await claimOnce(deps.redis, deps.config.redis.prefix, key, CLICK_CLAIM_SEC))
  ) {
    deps.logger.info(`approval ${id}: a click that was already handled, ignored`);
    return { kind: 'repeat' };
  }
  const { step } = verdict;
  const result = await deps.approvals.transition(id, channel, to, {
    actor: by,
    jobKey: `appr-${id}`,
    forbidSelf: selfForbidden(deps, step),
    // Under a sign-off the audit names each decider's side (history shows the client's people with their client).
    ...(step ? { step, ...(record.signoff ? { note: step } : {}) } : {}),
    ...(step === 'client' && input.team ? { team: input.team } : {}),
  });
  if (!result.ok) {
    if (result.state === 'missing') throw gone();
    if (result.self) return selfRefused(deps, by);
    if (result.stepped) return { kind: 'refused', refusal: { kind: 'stepped', record: result.record } };
    return refusedAsDecided(deps, result.record);
  }
  deps.logger.info(`approval ${id}: ${result.from} → ${result.partial ? `${step} step` : to} by ${by}`);
  return afterDecision(deps, result);
}

/**
 * The self-approval rule, for every step that completes a request (an agency approver's, a client approver's, an
 * admin's waiver of the client's): the requester's own click counts only where GATEWAY_ALLOW_SELF_APPROVAL allows
 * it, and a client approver never decides their own request, whatever it says. Enforced in the transition itself.
 */
export function selfForbidden(deps: Pick<Deps, 'config'>, step: SignoffStep | undefined): boolean {
  return step === 'client' || !deps.config.allowSelfApproval;
}

/** The refusal of a requester's own decision: who else could decide it. */
export async function selfRefused(deps: Pick<Deps, 'access'>, by: string): Promise<DecideOutcome> {
  return {
    kind: 'refused',
    refusal: { kind: 'self', others: await deps.access.otherApprovers(by), admin: deps.access.isAdmin(by) },
  };
}

/** What the clicker is, as far as the rule needs: their workspace, and whether they may decide as the agency or the client. */
export async function factsOf(deps: Deps, record: ApprovalRecord, by: string): Promise<ClickerFacts> {
  const { home, teams } = await deps.access.workspaceOf(by);
  if (home) return { home, teams, agencyApprover: await deps.access.isApprover(by), stillNamed: false };
  const binding = await deps.bindings.get(record.channel);
  const named =
    binding?.clientId === record.clientId &&
    (await deps.signoffs.get(record.channel, record.clientId)).approvers.some((a) => a.userId === by);
  return { home, teams, agencyApprover: false, stillNamed: named };
}

async function stepRefusal(
  deps: Deps,
  record: ApprovalRecord,
  by: string,
  refused: SignoffRefusal,
): Promise<ApprovalRefusal> {
  switch (refused) {
    case 'client-decides':
      return { kind: 'client-decides', clientApprovers: (record.clientApprovers ?? []).map((a) => a.userId) };
    case 'own-request':
      return {
        kind: 'self',
        others: (record.clientApprovers ?? []).map((a) => a.userId).filter((u) => u !== by),
        admin: false,
      };
    case 'not-here':
      return { kind: 'outsider' };
    case 'decided':
      return { kind: 'decided', record };
    case 'not-approver':
      if (!(await deps.access.workspaceOf(by)).home) return { kind: 'outsider' };
      return { kind: 'not-approver', approvers: deps.config.approvers };
  }
}

/**
 * A transition that went through: a sign-off step that leaves the request pending shows on the card; an approval
 * queues its run; anything else shows on the card.
 */
export async function afterDecision(
  deps: Deps,
  result: { record: ApprovalRecord; from: ApprovalState; partial?: true },
): Promise<DecideOutcome> {
  const decided = { kind: 'decided', record: result.record, from: result.from } as const;
  if (result.partial || result.record.state !== 'approved') {
    await showOnCard(deps.outbound, result.record);
    return decided;
  }
  // The run is queued first and the card loses its buttons after: no Slack round trip before the POST (a
  // click on the old buttons meanwhile is answered from Redis, whichever web process it reaches).
  const failure = await runApproved(deps, result.record);
  if (failure) return failure;
  await showOnCard(deps.outbound, result.record).catch((e) => deps.logger.warn('card update failed', e));
  // Should the run have ended before this update landed, it would hide the outcome: show the state now.
  const latest = await deps.approvals.get(result.record.id);
  if (latest && latest.state !== 'approved' && latest.state !== 'running')
    await showOnCard(deps.outbound, latest);
  return decided;
}

/** The requester's own Cancel. */
async function cancel(deps: Deps, input: DecideInput): Promise<DecideOutcome> {
  const record = await deps.approvals.get(input.id);
  if (!record || record.channel !== input.channel) throw gone();
  if (input.by !== record.requestedBy)
    return { kind: 'refused', refusal: { kind: 'not-requester', requestedBy: record.requestedBy } };
  const result = await deps.approvals.transition(record.id, record.channel, 'cancelled', { actor: input.by });
  if (!result.ok) {
    if (result.state === 'missing') throw gone();
    return refusedAsDecided(deps, result.record);
  }
  await showOnCard(deps.outbound, result.record);
  return { kind: 'decided', record: result.record, from: result.from };
}

async function refusedAsDecided(deps: Deps, record: ApprovalRecord): Promise<DecideOutcome> {
  // A click that found it expired made it so: the card says it now, whoever's click it was.
  if (record.state === 'expired') await showOnCard(deps.outbound, record);
  return { kind: 'refused', refusal: { kind: 'decided', record } };
}

/** Queues the approved run once (the winner of the transition only); a refusal fails the approval. */
async function runApproved(deps: Deps, record: ApprovalRecord): Promise<DecideOutcome | undefined> {
  const jobKey = record.jobKey ?? '';
  let failure: unknown;
  try {
    const result = await deps.requests.submit({
      requester: record.requestedBy,
      clientId: record.clientId,
      action: record.action,
      fields: record.fields,
      // The run reports under its card: in the card's thread, or beside the card when that is in a thread.
      replyTo: slackReplyTarget(record.channel, record.threadTs ?? record.cardTs),
      requestKey: jobKey,
      // The approver saw exactly this payload: no second question about an earlier record.
      confirmedDuplicate: true,
      approval: { id: record.id, state: 'approved' },
      ...(record.viaAssistant ? { viaAssistant: true } : {}),
    });
    if (result.kind === 'refused') failure = result.error;
  } catch (error) {
    failure = error;
  }
  if (failure === undefined) return undefined;
  const failed = await deps.approvals.transition(record.id, record.channel, 'failed', {
    actor: 'bot',
    jobKey,
    note: 'not_queued',
  });
  if (failed.ok)
    await showOnCard(deps.outbound, failed.record).catch((e) => deps.logger.warn('card update failed', e));
  return { kind: 'not-queued', error: failure };
}
