import type { WebClient } from '@slack/web-api';
import type { SlackMessage } from '../views/blocks.js';
import { fitMessage } from '../views/limits.js';
import { isNotInChannel } from './describe-error.js';

/**
 * Answers to one person where a click or a form has no response_url: the bot's direct message, or an
 * ephemeral in the form's channel. Fitted to Block Kit's limits like every other message (slack-poster.ts).
 */

const fitted = (message: SlackMessage) => {
  const { text, blocks } = fitMessage(message);
  return { text, blocks };
};

/** A message in the bot's direct message with `user`. */
export async function directMessage(client: WebClient, user: string, message: SlackMessage): Promise<void> {
  await client.chat.postMessage({ channel: user, ...fitted(message) });
}

/**
 * An answer to whoever submitted a form, in the channel it was opened from. Where the bot cannot post in the
 * channel (not invited, removed), the person still gets the answer, in the bot's direct message.
 */
export function replyInChannelOrDirect(client: WebClient, channel: string, user: string) {
  return async (message: SlackMessage): Promise<void> => {
    try {
      await client.chat.postEphemeral({ channel, user, ...fitted(message) });
    } catch (error) {
      if (!isNotInChannel(error)) throw error;
      await directMessage(client, user, message);
    }
  };
}
