import { UnrecoverableError } from 'bullmq';
import { ApprovalStore } from '../approvals/approval-store.js';
import { payloadHash } from '../approvals/payload.js';
import type { Metrics } from '../metrics.js';
import type { Redis } from '../redis.js';
import { buildApprovalMissing } from '../views/action-result.js';
import { JobErrorCode, markReported } from './job-errors.js';
import type { JobRun } from './job-run.js';
import type { ActionJobData } from './queue.js';

/**
 * The worker's own check that a guarded action was approved: whatever queued the job (an older web
 * process, a web role configured with fewer guarded actions, a hand-written job), a guarded action runs only
 * when the approval record in Redis says approved for this very job and this very payload. The check is the
 * approval's approved → running transition (approvals/transition.ts), so it is atomic with every click; a
 * second attempt of the same job finds it running for itself and goes on.
 */
export async function approvalAllowsRun(
  deps: { redis: Redis; prefix: string; metrics?: Metrics | undefined },
  data: Pick<ActionJobData, 'approval' | 'jobKey' | 'action' | 'clientId' | 'fields' | 'replyTo'>,
): Promise<boolean> {
  if (!data.approval) return false;
  const store = new ApprovalStore(deps.redis, deps.prefix, deps.metrics ? { metrics: deps.metrics } : {});
  const result = await store.transition(data.approval.id, data.replyTo.channel, 'running', {
    actor: 'worker',
    jobKey: data.jobKey,
    hash: payloadHash(data.action, data.clientId, data.fields),
  });
  return result.ok;
}

/** Tells the job's message and thread (best effort) and ends the job for good; nothing reaches the gateway. */
export async function refuseUnapproved(run: JobRun): Promise<never> {
  const error = new UnrecoverableError(
    `${JobErrorCode.ApprovalMissing}: ${run.entry.action} is guarded and the job carries no approved approval`,
  );
  try {
    await run.status('failed', 'not run: it needs an approval');
    await run.reply(buildApprovalMissing({ label: run.entry.label }));
    markReported(error);
  } catch (telling) {
    // Not marked: the worker's final-failure report tries once more.
    run.log.warn('could not tell the channel about a refused guarded job', telling);
  }
  throw error;
}
