import { requestKeys, UserError, UserErrorCode } from '../requests/index.js';
import type { BotServices } from '../services.js';
import { type ButtonListener, interactionOf } from '../slack/interaction-pipeline.js';
import { answerRequest } from '../slack/person-answers.js';
import { lineMessage } from '../views/blocks.js';

/**
 * "Generate another": the person saw the earlier record and wants a second one. The parked request is taken
 * from Redis once (GETDEL), so a double click queues one job.
 */
export function duplicateConfirm(services: BotServices): ButtonListener {
  return async function handleDuplicateConfirm({ body, action, context }) {
    const { log, reply, replace } = interactionOf(context);
    const pending = await services.requests.takePending(action.value ?? '');
    if (!pending) {
      // Already confirmed or cancelled by an earlier click (whose job stands), or expired: say so either way.
      throw new UserError(UserErrorCode.Expired, 'That question was already answered, or it expired.', {
        hint: 'Nothing more was generated. If you still want another one, run the command again.',
      });
    }
    await replace(lineMessage('Generating another one, as you asked.'));
    // The channel's binding now is what counts (the request layer checks it), not the one at the prompt.
    const result = await services.requests.submit({
      ...pending,
      requester: body.user.id,
      confirmedDuplicate: true,
      requestKey: requestKeys.duplicate(action.value ?? ''),
    });
    await answerRequest(result, reply, log);
  };
}

export function duplicateCancel(services: BotServices): ButtonListener {
  return async function handleDuplicateCancel({ action, context }) {
    await services.requests.takePending(action.value ?? '');
    await interactionOf(context).replace(lineMessage('Cancelled: nothing was generated.'));
  };
}
