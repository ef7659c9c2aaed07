import { historyPage } from '../approvals/index.js';
import type { BotServices } from '../services.js';
import { type ButtonListener, interactionOf } from '../slack/interaction-pipeline.js';

/** "Older" under `/gateway history`: the next page replaces the ephemeral one. The value is `page:cursor`. */
export function historyOlder(services: BotServices): ButtonListener {
  return async function handleHistoryOlder({ body, action, context }) {
    const match = /^(\d{1,6}):(\d{1,20}-\d{1,20})$/.exec(action.value ?? '');
    const channel = body.channel?.id ?? body.container?.channel_id;
    if (!match || !channel) return;
    const message = await historyPage(services, channel, Number(match[1]), match[2]);
    await interactionOf(context).replace(message);
  };
}
