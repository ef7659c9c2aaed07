import type { AllMiddlewareArgs, BlockButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { slackLogContext } from '../http/request-context.js';
import { requestKeys } from '../requests/request-keys.js';
import { UserError, UserErrorCode } from '../requests/user-error.js';
import type { BotServices } from '../services.js';
import { answerRequest } from '../slack/answer-request.js';
import { describeError } from '../slack/describe-error.js';
import type { SlackMessage } from '../views/blocks.js';

type ButtonArgs = SlackActionMiddlewareArgs<BlockButtonAction> & AllMiddlewareArgs;

/**
 * "Generate another": the person saw the earlier record and wants a second one. The pending request is taken
 * from Redis once (GETDEL), so a double click queues one job.
 */
export function duplicateConfirm(services: BotServices) {
  return async function handleDuplicateConfirm({
    ack,
    body,
    action,
    respond,
    context,
  }: ButtonArgs): Promise<void> {
    await ack();
    const log = services.logger.child({ ...slackLogContext(body, context), action: action.action_id });
    const reply = async (message: SlackMessage) => {
      await respond({ response_type: 'ephemeral', replace_original: false, ...message });
    };
    try {
      const pending = await services.requests.takePending(action.value ?? '');
      if (!pending) {
        // Already confirmed or cancelled by an earlier click (whose job stands), or expired: say so either way.
        throw new UserError(UserErrorCode.Expired, 'That question was already answered, or it expired.', {
          hint: 'Nothing more was generated. If you still want another one, run the command again.',
        });
      }
      await respond({ replace_original: true, text: 'Generating another one, as you asked.' });
      // The channel's binding now is what counts (the request layer checks it), not the one at the prompt.
      const result = await services.requests.submit({
        ...pending,
        requester: body.user.id,
        confirmedDuplicate: true,
        requestKey: requestKeys.duplicate(action.value ?? ''),
      });
      await answerRequest(result, reply, log);
    } catch (error) {
      await reply(describeError(error, log)).catch((e: unknown) =>
        log.error('could not report a duplicate prompt error', e),
      );
    }
  };
}

export function duplicateCancel(services: BotServices) {
  return async function handleDuplicateCancel({
    ack,
    body,
    action,
    respond,
    context,
  }: ButtonArgs): Promise<void> {
    await ack();
    const log = services.logger.child({ ...slackLogContext(body, context), action: action.action_id });
    try {
      await services.requests.takePending(action.value ?? '');
      await respond({ replace_original: true, text: 'Cancelled: nothing was generated.' });
    } catch (error) {
      await respond({
        response_type: 'ephemeral',
        replace_original: false,
        ...describeError(error, log),
      }).catch((e: unknown) => log.error('could not report a cancel error', e));
    }
  };
}
