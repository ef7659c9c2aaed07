import type { AppLogger } from '../logger.js';
import type { RequestResult } from '../requests/request.js';
import type { SlackMessage } from '../views/blocks.js';
import { buildDuplicatePrompt } from '../views/duplicate-prompt.js';
import { describeError, isNotInChannel } from './describe-error.js';
import { slackReplyTarget } from './reply-target.js';
import type { SlackOutbound } from './slack-poster.js';

/**
 * What the person who asked is answered, whatever the surface: a request's result (a refusal, the duplicate
 * question), and where a click or a form has no response_url, the bot's direct message or an ephemeral in the
 * form's channel, through the one Slack port (which fits them to Block Kit's limits).
 */

/**
 * What the person who asked sees of a request's result, whatever the surface: a refusal says why and what to
 * do; the duplicate question shows the earlier record with "Generate another"; a queued job speaks for
 * itself in the channel.
 */
export async function answerRequest(
  result: RequestResult,
  reply: (message: SlackMessage) => Promise<void>,
  log: AppLogger,
): Promise<void> {
  if (result.kind === 'refused') await reply(describeError(result.error, log));
  if (result.kind === 'ask') {
    const { entry, earlier, fields, pendingId } = result.question;
    await reply(buildDuplicatePrompt({ entry, earlier, fields, confirmValue: pendingId }));
  }
}

/** A message in the bot's direct message with `user`. */
export async function directMessage(
  slack: SlackOutbound,
  user: string,
  message: SlackMessage,
): Promise<void> {
  await slack.post(slackReplyTarget(user), message);
}

/**
 * An answer to whoever submitted a form, in the channel it was opened from. Where the bot cannot post in the
 * channel (not invited, removed), the person still gets the answer, in the bot's direct message.
 */
export function replyInChannelOrDirect(slack: SlackOutbound, channel: string, user: string) {
  return async (message: SlackMessage): Promise<void> => {
    try {
      await slack.ephemeral(slackReplyTarget(channel), user, message);
    } catch (error) {
      if (!isNotInChannel(error)) throw error;
      await directMessage(slack, user, message);
    }
  };
}
