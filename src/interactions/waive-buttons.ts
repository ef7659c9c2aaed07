import { decisionAnswer, waivable, waiveSignoff } from '../approvals/index.js';
import type { BotServices } from '../services.js';
import { describeError } from '../slack/describe-error.js';
import { type ButtonListener, interactionOf, type ViewListener } from '../slack/interaction-pipeline.js';
import { buildWaiveModal, readWaiveModal } from '../views/signoff-waiver.js';

/** "Waive client sign-off" (admins only): the card's button opens the reason form; the form waives. */

export function waiveButton(services: BotServices): ButtonListener {
  return async function handleWaiveButton({ body, action }) {
    const record = await waivable(services, action.value ?? '', body.user.id);
    await services.outbound.openModal(body.trigger_id, buildWaiveModal(record));
  };
}

export function waiveSubmission(services: BotServices): ViewListener {
  return async function handleWaiveForm({ ack, body, view, context }) {
    const { id, reason } = readWaiveModal(view);
    if (!reason) {
      await ack({
        response_action: 'errors',
        errors: { reason: 'Say why the client’s sign-off is waived.' },
      });
      return;
    }
    await ack();
    const { log, reply } = interactionOf(context);
    try {
      const message = decisionAnswer(await waiveSignoff(services, { id, by: body.user.id, reason }), log);
      if (message) await reply(message);
    } catch (error) {
      await reply(describeError(error, log)).catch((e: unknown) => log.error('could not answer a waiver', e));
    }
  };
}
