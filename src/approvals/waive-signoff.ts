import { notAdminError } from '../requests/index.js';
import { afterDecision, type DecideOutcome, type Deps, gone, selfForbidden, selfRefused } from './decide.js';
import type { ApprovalRecord } from './record.js';

/**
 * An admin waives a pending request's client sign-off, with a reason: the client's step counts as done (the
 * agency's still counts under `both`), the waiver is audited (`waived`, its reason as the note) and the card
 * shows it to everyone in the channel. Only admins, only while the client's step is open, and never the
 * requester's own (the self-approval rule, decide.ts).
 */

export interface WaiveInput {
  id: string;
  by: string;
  reason: string;
}

/** The pending request whose client sign-off `by` may waive now; a UserError or AccessError otherwise. */
export async function waivable(
  deps: Pick<Deps, 'approvals' | 'access'>,
  id: string,
  by: string,
): Promise<ApprovalRecord> {
  if (!deps.access.isAdmin(by)) throw notAdminError('waive a client sign-off', deps.access.admins());
  const record = await deps.approvals.get(id);
  if (!record) throw gone();
  return record;
}

export async function waiveSignoff(deps: Deps, input: WaiveInput): Promise<DecideOutcome> {
  const record = await waivable(deps, input.id, input.by);
  const result = await deps.approvals.transition(record.id, record.channel, 'approved', {
    actor: input.by,
    jobKey: `appr-${record.id}`,
    step: 'waive',
    note: input.reason,
    // A waiver completes the client's step: the requester's own waiver would be an approval nobody else gave.
    forbidSelf: selfForbidden(deps, 'waive'),
  });
  if (!result.ok) {
    if (result.state === 'missing') throw gone();
    if (result.self) return selfRefused(deps, input.by);
    if (result.stepped || result.state === 'pending')
      return { kind: 'refused', refusal: { kind: 'stepped', record: result.record } };
    return { kind: 'refused', refusal: { kind: 'decided', record: result.record } };
  }
  deps.logger.info(`approval ${record.id}: client sign-off waived by ${input.by}`);
  return afterDecision(deps, result);
}
