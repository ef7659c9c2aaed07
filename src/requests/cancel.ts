import { buildJobStatus } from '../views/job-status.js';
import { actionTitle } from '../views/template.js';
import type { RequestDeps } from './request.js';
import { UserError, UserErrorCode } from './user-error.js';

/**
 * Cancelling a queued job (its status message's Cancel button): only its requester or an admin, and only
 * while it has not started. Once a worker has taken it, its POST may be on its way, so it is left to finish
 * and the person is told so. The status message then says who cancelled it; nothing was sent to the gateway.
 * An approved job's approval is cancelled with it, so its card stops saying "queued" and it can be asked again.
 */
export async function cancelJob(
  deps: RequestDeps,
  input: { jobKey: string; by: string; channel: string | undefined },
): Promise<void> {
  const job = await deps.queue.findJob(input.jobKey);
  if (job && input.channel && job.data.replyTo.channel !== input.channel) {
    throw new UserError(UserErrorCode.WrongClient, 'That job belongs to another channel.');
  }
  if (job && job.data.requestedBy !== input.by && !deps.access.isAdmin(input.by)) {
    throw new UserError(
      UserErrorCode.NotRequester,
      'Only the person who asked for this job or an admin can cancel it.',
      {
        hint: 'Ask the person its message names, or an admin.',
      },
    );
  }
  const outcome = await deps.queue.cancel(input.jobKey, input.by);
  if (outcome.kind === 'started') {
    throw new UserError(
      UserErrorCode.JobStarted,
      'This job has already started, so it can no longer be cancelled.',
      {
        hint: 'Its result will appear in the thread of its message.',
      },
    );
  }
  if (outcome.kind === 'gone') {
    throw new UserError(UserErrorCode.Expired, 'That job has already ended or is no longer known.', {
      hint: '`/gateway jobs` lists this channel’s jobs.',
    });
  }
  const { data } = outcome;
  deps.logger.info(`job ${input.jobKey} cancelled by ${input.by}`);
  await deps
    .requestFinished?.(data, { cancelledBy: input.by })
    .catch((e: unknown) => deps.logger.warn('a listener of a request’s end failed', e));
  // The job is already gone, so a failure here is logged, not shown: the card would only lag behind.
  if (data.approval)
    await deps.approvalHooks
      .cancelled(data, input.by)
      .catch((e: unknown) =>
        deps.logger.warn(`could not cancel the approval of cancelled job ${data.jobKey}`, e),
      );
  if (!data.statusTs) return;
  const entry = (await deps.catalogue()).byAction(data.action) ?? { label: data.action };
  const message = buildJobStatus({
    title: actionTitle(entry, data.fields),
    clientLabel: data.clientLabel,
    requestedBy: data.requestedBy,
    state: 'cancelled',
    summary: `cancelled by <@${input.by}> before it started; nothing was sent to the gateway`,
  });
  await deps.outbound.update(data.replyTo, data.statusTs, message);
}
