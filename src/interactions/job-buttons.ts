import { decideApproval } from '../approvals/decide.js';
import { requestKeys } from '../requests/request-keys.js';
import { UserError, UserErrorCode } from '../requests/user-error.js';
import type { BotServices } from '../services.js';
import { answerRequest } from '../slack/answer-request.js';
import { claimOnce, releaseClaim } from '../store/dedupe.js';
import { answerDecision } from './approval-buttons.js';
import { type ButtonListener, interactionOf } from './pipeline.js';

/**
 * "Retry" (after `status: "error"`) and "Retry anyway" (after an outcome nobody could tell): a person decides,
 * and one new job runs however many times the button is clicked. Only the requester, admins and approvers may.
 */
export function jobRetry(services: BotServices, options: { anyway: boolean }): ButtonListener {
  return async function handleJobRetry({ body, action, context }) {
    const interaction = interactionOf(context);
    const { log, reply } = interaction;
    const jobKey = action.value ?? '';
    const job = await services.queue.findJob(jobKey);
    if (!job) {
      throw new UserError(
        UserErrorCode.Expired,
        'That job is no longer known, so it cannot be retried from here.',
        {
          hint: 'Run the command again.',
        },
      );
    }
    const { data } = job;
    const from = body.channel?.id ?? body.container?.channel_id;
    if (from !== data.replyTo.channel) {
      throw new UserError(UserErrorCode.WrongClient, 'That job belongs to another channel.', {
        hint: 'Retry it from the channel where it ran.',
      });
    }
    // An approved job runs again only on an approver's decision: the approval's own Retry.
    if (data.approval) {
      const outcome = await decideApproval(services, {
        id: data.approval.id,
        channel: from,
        by: body.user.id,
        to: 'approved',
        click: body.trigger_id,
      });
      return answerDecision(outcome, interaction);
    }
    // Before the claim: a refused click must not use up the one retry.
    await services.access.requireRetry(body.user.id, data.requestedBy);
    const claim = `retry:${jobKey}`;
    if (!(await claimOnce(services.redis, services.config.redis.prefix, claim, 86_400))) return;
    try {
      log.info(`${options.anyway ? 'retry anyway' : 'retry'} of ${jobKey} by ${body.user.id}`);
      const result = await services.requests.submit({
        requester: body.user.id,
        clientId: data.clientId,
        action: data.action,
        fields: data.fields,
        replyTo: data.replyTo,
        requestKey: requestKeys.retry(jobKey),
        confirmedDuplicate: true,
        retryOf: jobKey,
      });
      if (result.kind === 'refused') throw result.error;
      await answerRequest(result, reply, log);
    } catch (error) {
      // Nothing was queued (the queue's own job id guards a retry that was): let the next click try again.
      await releaseClaim(services.redis, services.config.redis.prefix, claim).catch(() => {});
      throw error;
    }
  };
}

/** "Cancel" on a queued job's message: removes it while it has not started (requests/cancel.ts). */
export function jobCancel(services: BotServices): ButtonListener {
  return async function handleJobCancel({ body, action }) {
    const channel = body.channel?.id ?? body.container?.channel_id;
    await services.requests.cancel(action.value ?? '', body.user.id, channel);
  };
}
