import type { SlackMessage } from '../views/blocks.js';
import { isNotInChannel } from './describe-error.js';
import { slackReplyTarget } from './reply-target.js';
import type { SlackOutbound } from './slack-poster.js';

/**
 * Answers to one person where a click or a form has no response_url: the bot's direct message, or an
 * ephemeral in the form's channel, through the one Slack port (which fits them to Block Kit's limits).
 */

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
