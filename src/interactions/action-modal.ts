import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import { validateActionFields } from '../actions/parse-args.js';
import { slackLogContext } from '../http/request-context.js';
import { slackReplyTarget } from '../jobs/reply-target.js';
import { requestKeys } from '../requests/request-keys.js';
import { UserError, UserErrorCode } from '../requests/user-error.js';
import type { BotServices } from '../services.js';
import { answerRequest } from '../slack/answer-request.js';
import { describeError, slackErrorCode } from '../slack/describe-error.js';
import { parseModalMetadata } from '../slack/open-action-modal.js';
import { claimOnce } from '../store/dedupe.js';
import { readActionModal } from '../views/action-modal.js';
import type { SlackMessage } from '../views/blocks.js';

type SubmitArgs = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs;

/**
 * An action modal's submission: field errors go back onto the fields (`response_action: errors`) so nothing
 * typed is lost; a valid one closes the modal and takes the command's submission path. The view id is the
 * dedupe key, so a double submission is one job.
 */
export function actionModalSubmission(services: BotServices) {
  return async function handleActionModal({ ack, body, view, client, context }: SubmitArgs): Promise<void> {
    const log = services.logger.child({ ...slackLogContext(body, context), view: view.id });
    const meta = parseModalMetadata(view.private_metadata);
    const catalogue = await services.catalogue();
    const entry = meta ? catalogue.byAction(meta.action) : undefined;
    if (!meta || !entry) {
      // An empty errors answer would leave the form open with nothing said: close it and explain.
      await ack();
      const gone = describeError(
        new UserError(UserErrorCode.Unavailable, 'That form is out of date, so nothing was run.', {
          hint: '`/gateway help` lists the actions the gateway offers now; run the command again.',
        }),
        log,
      );
      await client.chat
        .postMessage({ channel: body.user.id, ...gone })
        .catch((e: unknown) => log.error('could not report an out-of-date form', e));
      return;
    }
    const raw = readActionModal(entry, view.state.values);
    const checked = validateActionFields(entry, raw);
    if (!checked.ok) {
      await ack({ response_action: 'errors', errors: checked.errors });
      return;
    }
    await ack();
    const tell = async (message: SlackMessage) => {
      try {
        await client.chat.postEphemeral({ channel: meta.channel, user: body.user.id, ...message });
      } catch (error) {
        // A modal has no response_url: where the bot cannot post in the channel (not invited, removed),
        // the person still gets the answer, in the bot's direct message.
        const code = slackErrorCode(error);
        if (code !== 'not_in_channel' && code !== 'channel_not_found') throw error;
        await client.chat.postMessage({ channel: body.user.id, ...message });
      }
    };
    try {
      if (!(await claimOnce(services.redis, services.config.redis.prefix, `view:${view.id}`, 86_400))) {
        log.info('duplicate submission of a modal ignored');
        return;
      }
      const result = await services.requests.submit({
        requester: body.user.id,
        clientId: meta.clientId,
        action: entry.action,
        fields: checked.fields,
        replyTo: slackReplyTarget(meta.channel),
        requestKey: requestKeys.form(view.id),
      });
      await answerRequest(result, tell, log);
    } catch (error) {
      await tell(describeError(error, log)).catch((e: unknown) =>
        log.error('could not report a modal error', e),
      );
    }
  };
}
