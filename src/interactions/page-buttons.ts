import { readResourcePage } from '../reads/index.js';
import { UserError, UserErrorCode } from '../requests/index.js';
import type { BotServices } from '../services.js';
import { isNotInChannel } from '../slack/describe-error.js';
import { type ButtonListener, interactionOf } from '../slack/interaction-pipeline.js';
import { slackReplyTarget } from '../slack/reply-target.js';
import { decodePageQuery } from '../views/resource-page.js';

/**
 * Next/Previous on a resource page: re-reads the page the button names and replaces the message in place. The
 * button's value can be forged, so it is decoded strictly and its client must be the channel's own.
 */
export function pageButton(services: BotServices): ButtonListener {
  return async function handlePageButton({ body, action, context }) {
    const query = decodePageQuery(action.value ?? '');
    if (!query) {
      throw new UserError(UserErrorCode.Expired, 'That button no longer works.', {
        hint: 'Run the command again for a fresh page.',
      });
    }
    const channel = body.channel?.id ?? body.container?.channel_id;
    const binding = channel ? await services.bindings.get(channel) : undefined;
    const isClients = query.resource === 'clients';
    if (!isClients && binding?.clientId !== query.clientId) {
      throw new UserError(
        UserErrorCode.WrongClient,
        'This page belongs to a client this channel is no longer bound to.',
        {
          hint: 'Run the command again to read the channel’s current client.',
        },
      );
    }
    const { resource, ...rest } = query;
    const message = await readResourcePage(
      services,
      body.user.id,
      { clientId: query.clientId, clientLabel: binding?.clientLabel ?? 'this agency' },
      resource,
      rest,
    );
    const ts = body.message?.ts;
    const replace = () => interactionOf(context).replace(message);
    if (channel && ts && !body.container?.is_ephemeral) {
      await services.outbound.update(slackReplyTarget(channel), ts, message).catch(async (error: unknown) => {
        // Removed from the channel, the bot can no longer edit its message there; the click's response_url
        // still can, so the page turns anyway.
        if (!isNotInChannel(error)) throw error;
        await replace();
      });
    } else {
      await replace();
    }
  };
}
