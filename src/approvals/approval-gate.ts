import type { ActionJobData } from '../jobs/index.js';
import type { ApprovalStore } from './approval-store.js';
import { payloadHash } from './payload.js';

/**
 * The worker's own check that a guarded action was approved: whatever queued the job (an older web
 * process, a web role configured with fewer guarded actions, a hand-written job), a guarded action runs only
 * when the approval record in Redis says approved for this very job and this very payload. The check is the
 * approval's approved → running transition (approvals/transition.ts), so it is atomic with every click; a
 * second attempt of the same job finds it running for itself and goes on.
 */
export async function approvalAllowsRun(
  store: ApprovalStore,
  data: Pick<ActionJobData, 'approval' | 'jobKey' | 'action' | 'clientId' | 'fields' | 'replyTo'>,
): Promise<boolean> {
  if (!data.approval) return false;
  const result = await store.transition(data.approval.id, data.replyTo.channel, 'running', {
    actor: 'worker',
    jobKey: data.jobKey,
    hash: payloadHash(data.action, data.clientId, data.fields),
  });
  return result.ok;
}
