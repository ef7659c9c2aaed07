import { validateActionFields } from '../actions/index.js';
import { requestApprovalAs } from '../approvals/index.js';
import { requestKeys, UserError, UserErrorCode } from '../requests/index.js';
import type { BotServices } from '../services.js';
import { answerRequest } from '../slack/answer-request.js';
import { describeError } from '../slack/describe-error.js';
import { interactionOf, type ViewListener } from '../slack/interaction-pipeline.js';
import { parseModalMetadata } from '../slack/open-action-modal.js';
import { replyInChannelOrDirect } from '../slack/person-reply.js';
import { slackReplyTarget } from '../slack/reply-target.js';
import { claimOnce } from '../store/index.js';
import { readActionModal } from '../views/action-modal.js';

/**
 * An action form's submission: field errors go back onto the fields (`response_action: errors`) so nothing
 * typed is lost; a valid one closes the form, is admitted once (the person was checked by the pipeline) and goes
 * to the request layer, as a command does. The view id is the dedupe key, so a double submission is one job.
 */
export function actionModalSubmission(services: BotServices): ViewListener {
  return async function handleActionModal({ ack, body, view, context }) {
    const { log, reply: direct } = interactionOf(context);
    const meta = parseModalMetadata(view.private_metadata);
    const catalogue = await services.catalogue();
    const entry = meta ? catalogue.byAction(meta.action) : undefined;
    if (!meta || !entry) {
      // An empty errors answer would leave the form open with nothing said: close it and explain.
      await ack();
      const gone = new UserError(UserErrorCode.Unavailable, 'That form is out of date, so nothing was run.', {
        hint: '`/gateway help` lists the actions the gateway offers now; run the command again.',
      });
      await direct(describeError(gone, log)).catch((e: unknown) =>
        log.error('could not report an out-of-date form', e),
      );
      return;
    }
    const checked = validateActionFields(entry, readActionModal(entry, view.state.values));
    if (!checked.ok) {
      await ack({ response_action: 'errors', errors: checked.errors });
      return;
    }
    await ack();
    const tell = replyInChannelOrDirect(services.slack, meta.channel, body.user.id);
    try {
      if (!(await claimOnce(services.redis, services.config.redis.prefix, `view:${view.id}`, 86_400))) {
        log.info('duplicate submission of a modal ignored');
        return;
      }
      // The binding is read again, not taken from the form: a channel bound to another client since it opened
      // must not run a form filled for the one before (its metadata names that client).
      const admitted = await services.requests.admit({
        requester: body.user.id,
        entry,
        approved: entry.guarded,
        clientId: meta.clientId,
        channel: meta.channel,
      });
      const requestKey = requestKeys.form(view.id);
      if (entry.guarded) {
        // A guarded action's form asks for an approval: the card is the answer.
        const thread = meta.thread ? { threadTs: meta.thread } : {};
        await requestApprovalAs(services, admitted, { fields: checked.fields, requestKey, ...thread });
        return;
      }
      const replyTo = slackReplyTarget(meta.channel);
      const result = await services.requests.submitAdmitted(admitted, {
        fields: checked.fields,
        replyTo,
        requestKey,
      });
      await answerRequest(result, tell, log);
    } catch (error) {
      await tell(describeError(error, log)).catch((e: unknown) =>
        log.error('could not report a modal error', e),
      );
    }
  };
}
