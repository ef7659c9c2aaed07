import { retryJob } from '../approvals/index.js';
import type { BotServices } from '../services.js';
import { type ButtonListener, interactionOf } from '../slack/interaction-pipeline.js';
import { answerRequest } from '../slack/person-answers.js';
import { answerDecision } from './approval-buttons.js';

/**
 * "Retry" (after `status: "error"`) and "Retry anyway" (after an outcome nobody could tell): a person decides,
 * and one new job runs however many times the button is clicked. Only the requester, admins and approvers may.
 */
export function jobRetry(services: BotServices, options: { anyway: boolean }): ButtonListener {
  return async function handleJobRetry({ body, action, context }) {
    const interaction = interactionOf(context);
    const { log, reply } = interaction;
    const jobKey = action.value ?? '';
    log.info(`${options.anyway ? 'retry anyway' : 'retry'} of ${jobKey} by ${body.user.id}`);
    const retried = await retryJob(services, {
      jobKey,
      by: body.user.id,
      channel: body.channel?.id ?? body.container?.channel_id ?? '',
      click: body.trigger_id,
    });
    if (retried.kind === 'decision') return answerDecision(retried.outcome, interaction);
    if (retried.kind === 'request') await answerRequest(retried.result, reply, log);
  };
}

/** "Cancel" on a queued job's message: removes it while it has not started (requests/cancel.ts). */
export function jobCancel(services: BotServices): ButtonListener {
  return async function handleJobCancel({ body, action }) {
    const channel = body.channel?.id ?? body.container?.channel_id;
    await services.requests.cancel(action.value ?? '', body.user.id, channel);
  };
}
