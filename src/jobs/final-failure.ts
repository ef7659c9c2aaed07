import { buildActionGaveUp, buildApprovalMissing, buildOutcomeUnknown } from '../views/action-result.js';
import type { SlackMessage } from '../views/blocks.js';
import { buildJobStatus } from '../views/job-status.js';
import { actionTitle } from '../views/template.js';
import { failureCode, JobErrorCode } from './job-errors.js';
import { type ActionJob, type ActionJobDeps, storedData } from './job-run.js';
import type { JobState } from './job-state.js';

/**
 * A job that fails for good without having told its channel: an action the gateway no longer offers, a
 * fault no path expected on the last attempt, a job BullMQ failed because it stalled too often (its worker
 * died mid-POST more than once; the processor never ran). The worker calls this from its `failed` event, so
 * no job ends silently with its status message stuck at "queued" or "running".
 *
 * The thread gets the failure's code and time only: an error's message can name the gateway's address.
 * What the thread is told follows the job's stored step: "posting" on an action that is not safe to repeat
 * means the POST may have run, so a person decides ("Retry anyway"); otherwise it failed ("Retry").
 */
export async function reportFinalFailure(job: ActionJob, error: Error, deps: ActionJobDeps): Promise<void> {
  const data = (await storedData(deps.redis, job)) ?? job.data;
  const entry = (await deps.catalogue()).byAction(data.action);
  const label = entry?.label ?? data.action;
  const at = new Date().toISOString();
  const post = async (state: JobState, summary: string, reply?: SlackMessage) => {
    const status = buildJobStatus({
      title: actionTitle(entry ?? { label }, data.fields),
      clientLabel: data.clientLabel,
      requestedBy: data.requestedBy,
      state,
      summary,
      ...(data.retryOf ? { retryOf: data.retryOf } : {}),
    });
    let ts = data.statusTs;
    if (ts) await deps.outbound.update(data.replyTo, ts, status);
    else ts = await deps.outbound.post(data.replyTo, status);
    if (reply) await deps.outbound.reply(data.replyTo, ts, reply);
  };
  if (error.message.startsWith(`${JobErrorCode.ApprovalMissing}:`)) {
    // Refused before anything was sent: no Retry button, since a retry would be refused the same way.
    await post('failed', 'not run: it needs an approval', buildApprovalMissing({ label }));
    return;
  }
  if (data.step === 'done') {
    await post('done', 'done, but the result could not be posted in this thread');
    return;
  }
  if (data.step === 'posting' && !entry?.safeToRepeat) {
    const reason = `the job stopped while its request may have been with the gateway (${failureCode(error)} at ${at})`;
    await post(
      'needs-attention',
      'outcome unknown: a person must decide',
      buildOutcomeUnknown({ label, jobKey: data.jobKey, reason }),
    );
    return;
  }
  await post(
    'failed',
    'failed',
    buildActionGaveUp({ label, message: failureCode(error), at, jobKey: data.jobKey }),
  );
}
