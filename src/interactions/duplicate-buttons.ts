import type { AllMiddlewareArgs, BlockButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { describeError } from '../commands/describe-error.js';
import { submitAction, takePendingRequest } from '../commands/submit-action.js';
import { notBoundError, UserError, UserErrorCode } from '../commands/user-error.js';
import { slackLogContext } from '../http/request-context.js';
import type { BotServices } from '../services.js';

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
    client,
    context,
  }: ButtonArgs): Promise<void> {
    await ack();
    const log = services.logger.child({ ...slackLogContext(body, context), action: action.action_id });
    const reply = async (message: { text: string; blocks: import('@slack/bolt').types.KnownBlock[] }) => {
      await respond({ response_type: 'ephemeral', replace_original: false, ...message });
    };
    try {
      const pending = await takePendingRequest(services, action.value ?? '');
      if (!pending) {
        // Already confirmed or cancelled by an earlier click (whose job stands), or expired: say so either way.
        throw new UserError(UserErrorCode.Expired, 'That question was already answered, or it expired.', {
          hint: 'Nothing more was generated. If you still want another one, run the command again.',
        });
      }
      await respond({ replace_original: true, text: 'Generating another one, as you asked.' });
      const catalogue = await services.catalogue();
      const entry = catalogue.byAction(pending.action);
      if (!entry) {
        throw new UserError(UserErrorCode.Unavailable, `The gateway no longer lists \`${pending.action}\`.`);
      }
      // The channel's binding now is what counts, not the one at the time of the prompt.
      const binding = await services.bindings.get(pending.channel);
      if (!binding) throw notBoundError();
      if (binding.clientId !== pending.binding.clientId) {
        throw new UserError(UserErrorCode.WrongClient, 'This channel is now bound to another client.', {
          hint: 'Run the command again for the current client.',
        });
      }
      await submitAction(
        services,
        client,
        {
          ...pending,
          entry,
          binding,
          user: body.user.id,
          confirmedDuplicate: true,
          jobKey: `dup-${action.value}`,
        },
        reply,
      );
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
      await takePendingRequest(services, action.value ?? '');
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
