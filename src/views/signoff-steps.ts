import type { ApprovalRecord } from '../approvals/record.js';
import { escapeMrkdwn, oneLine } from './escape.js';

/**
 * A sign-off's steps on the card, under the `client` and `both` policies: each step, who decided it, and who may
 * still decide (the client approvers are mentioned while the card waits for them). Pure.
 */

const who = (id: string) => `<@${id}>`;

/** "Agency approval: ✅ @alice · Client sign-off: waiting for @dana (Acme)"; undefined under `agency`. */
export function signoffSteps(record: ApprovalRecord): string | undefined {
  const policy = record.signoff ?? 'agency';
  if (policy === 'agency') return undefined;
  const client = escapeMrkdwn(oneLine(record.clientLabel));
  const rejected = record.state === 'rejected';
  const steps: string[] = [];
  if (policy === 'both') {
    steps.push(
      `Agency approval: ${
        record.agencyBy
          ? `${rejected && record.decidedBy === record.agencyBy ? ':no_entry: rejected by' : '✅'} ${who(record.agencyBy)}`
          : stillOpen(record, 'an agency approver')
      }`,
    );
  }
  steps.push(`Client sign-off: ${clientStep(record, client)}`);
  return steps.join(' · ');
}

function clientStep(record: ApprovalRecord, client: string): string {
  if (record.waivedBy) {
    const reason = record.waiveReason ? `: “${escapeMrkdwn(oneLine(record.waiveReason))}”` : '';
    return `waived by ${who(record.waivedBy)}${reason}`;
  }
  if (record.clientBy) {
    const rejected = record.state === 'rejected' && record.decidedBy === record.clientBy;
    return `${rejected ? ':no_entry: rejected by' : '✅'} ${who(record.clientBy)} (${client})`;
  }
  const named = (record.clientApprovers ?? []).map((a) => who(a.userId));
  if (!named.length) return stillOpen(record, 'a client approver (none is named: an admin can waive it)');
  return stillOpen(record, `${named.join(' or ')} (${client})`);
}

/** A step nobody decided: who it waits for while the request is pending, else that it was not needed any more. */
function stillOpen(record: ApprovalRecord, waitingFor: string): string {
  return record.state === 'pending' ? `waiting for ${waitingFor}` : '—';
}
