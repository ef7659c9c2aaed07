import type { AllMiddlewareArgs, BlockButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { describeError } from '../commands/describe-error.js';
import { submitAction } from '../commands/submit-action.js';
import { notBoundError, UserError, UserErrorCode } from '../commands/user-error.js';
import { slackLogContext } from '../http/request-context.js';
import type { BotServices } from '../services.js';
import { claimOnce, releaseClaim } from '../store/dedupe.js';

type ButtonArgs = SlackActionMiddlewareArgs<BlockButtonAction> & AllMiddlewareArgs;

/**
 * "Retry" (after `status: "error"`) and "Retry anyway" (after an outcome nobody could tell): a person decides,
 * and one new job runs however many times the button is clicked. Only the requester, admins and approvers may.
 */
export function jobRetry(services: BotServices, options: { anyway: boolean }) {
  return async function handleJobRetry({
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
    const jobKey = action.value ?? '';
    let claimed = false;
    try {
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
      if (from !== data.channel) {
        throw new UserError(UserErrorCode.WrongClient, 'That job belongs to another channel.', {
          hint: 'Retry it from the channel where it ran.',
        });
      }
      // Before the claim: a refused click must not use up the one retry.
      await services.access.requireRetry(body.user.id, data.requestedBy);
      claimed = await claimOnce(services.redis, services.config.redis.prefix, `retry:${jobKey}`, 86_400);
      if (!claimed) return;
      const binding = await services.bindings.get(data.channel);
      if (!binding) throw notBoundError();
      if (binding.clientId !== data.clientId) {
        throw new UserError(UserErrorCode.WrongClient, 'This channel is now bound to another client.', {
          hint: 'Run the command again for the current client.',
        });
      }
      const entry = (await services.catalogue()).byAction(data.action);
      if (!entry)
        throw new UserError(UserErrorCode.Unavailable, `The gateway no longer lists \`${data.action}\`.`);
      log.info(`${options.anyway ? 'retry anyway' : 'retry'} of ${jobKey} by ${body.user.id}`);
      await submitAction(
        services,
        client,
        {
          entry,
          fields: data.fields,
          binding,
          channel: data.channel,
          user: body.user.id,
          jobKey: `retry-${jobKey}`,
          confirmedDuplicate: true,
          retryOf: jobKey,
        },
        reply,
      );
    } catch (error) {
      // Nothing was queued (the queue's own job id guards a retry that was): let the next click try again.
      if (claimed)
        await releaseClaim(services.redis, services.config.redis.prefix, `retry:${jobKey}`).catch(() => {});
      await reply(describeError(error, log));
    }
  };
}
