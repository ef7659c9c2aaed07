import { bindChannel, findClient } from '../bindings/index.js';
import { notAdminError, UserError, UserErrorCode } from '../requests/index.js';
import type { BotServices } from '../services.js';
import { type ButtonListener, interactionOf } from '../slack/interaction-pipeline.js';
import { slackReplyTarget } from '../slack/reply-target.js';
import { lineMessage } from '../views/blocks.js';
import { escapeMrkdwn } from '../views/escape.js';
import type { RebindChoice } from '../views/status.js';

/** The buttons' value, strictly: a click can be forged, and a stale one must not rebind anything. */
function choiceOf(value: string | undefined): RebindChoice | undefined {
  try {
    const raw = JSON.parse(value ?? '') as Partial<RebindChoice>;
    if (typeof raw.clientId === 'string' && typeof raw.fromClientId === 'string' && raw.clientId) {
      return { clientId: raw.clientId, fromClientId: raw.fromClientId };
    }
  } catch {
    // not a value we made
  }
  return undefined;
}

/**
 * "Switch to …" after `use` in a bound channel: only an admin, only while the channel is still bound to the
 * client the question named, and only to a client the key still reaches. The question is replaced by the answer.
 */
export function rebindConfirm(services: BotServices): ButtonListener {
  return async function handleRebindConfirm({ body, action, context }) {
    if (!services.access.isAdmin(body.user.id))
      throw notAdminError('bind a channel to a client', services.access.admins());
    const choice = choiceOf(action.value);
    const channel = body.channel?.id ?? body.container?.channel_id;
    const current = channel ? await services.bindings.get(channel) : undefined;
    if (!choice || !channel || current?.clientId !== choice.fromClientId) {
      throw new UserError(UserErrorCode.Expired, 'The channel’s binding changed since this question.', {
        hint: '`/gateway status` shows the client now; run `/gateway use <client_id>` again to switch.',
      });
    }
    const found = await findClient(services, choice.clientId);
    await bindChannel(services, { channel, user: body.user.id, ...found }, (message) =>
      services.outbound.post(slackReplyTarget(channel), message),
    );
    await interactionOf(context).replace(
      lineMessage(escapeMrkdwn(`Switched from ${current.clientLabel} to ${found.clientLabel}.`)),
    );
  };
}

export function rebindCancel(services: BotServices): ButtonListener {
  return async function handleRebindCancel({ body, context }) {
    const channel = body.channel?.id ?? body.container?.channel_id;
    const current = channel ? await services.bindings.get(channel) : undefined;
    const kept = current
      ? `${escapeMrkdwn(current.clientLabel)} (\`${escapeMrkdwn(current.clientId)}\`)`
      : 'the binding';
    await interactionOf(context).replace(lineMessage(`Kept ${kept}: nothing changed.`));
  };
}
