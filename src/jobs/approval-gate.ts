import { UnrecoverableError } from 'bullmq';
import { buildApprovalMissing } from '../views/action-result.js';
import { JobErrorCode, markReported } from './job-errors.js';
import type { JobRun } from './job-run.js';
import type { ActionJobData } from './queue.js';

/**
 * The worker's own check that a guarded action was approved (DESIGN §5): whatever queued the job (an older web
 * process, a web role configured with fewer guarded actions, a hand-written job), a guarded action runs only
 * with an approved approval. The approvals issue fills `ActionJobData.approval` and may make this look the
 * approval record up in Redis; until then no job carries one, so every guarded job is refused.
 */

export function hasApprovedApproval(data: Pick<ActionJobData, 'approval'>): boolean {
  return data.approval?.state === 'approved';
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
