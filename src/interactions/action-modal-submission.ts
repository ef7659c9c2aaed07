import { type ActionEntry, validateActionFields } from '../actions/index.js';
import { requestApprovalAs } from '../approvals/index.js';
import type { AppLogger } from '../logger.js';
import { requestKeys, UserError, UserErrorCode } from '../requests/index.js';
import type { BotServices } from '../services.js';
import { describeError } from '../slack/describe-error.js';
import { interactionOf, type ViewListener } from '../slack/interaction-pipeline.js';
import { type ModalMetadata, parseModalMetadata } from '../slack/open-action-modal.js';
import { answerRequest, replyInChannelOrDirect } from '../slack/person-answers.js';
import { slackReplyTarget } from '../slack/reply-target.js';
import { claimOnce } from '../store/index.js';
import { readActionModal } from '../views/action-modal.js';
import type { SlackMessage } from '../views/blocks.js';

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
    const tell = replyInChannelOrDirect(services.outbound, meta.channel, body.user.id);
    const form: SubmittedForm = { entry, meta, fields: checked.fields, viewId: view.id, user: body.user.id };
    try {
      await askFromForm(services, form, tell, log);
    } catch (error) {
      await tell(describeError(error, log)).catch((e: unknown) =>
        log.error('could not report a modal error', e),
      );
    }
  };
}

interface SubmittedForm {
  entry: ActionEntry;
  meta: ModalMetadata;
  fields: Record<string, unknown>;
  viewId: string;
  user: string;
}

/** A valid form's request, once per view: admitted, then queued or (a guarded action) asked for on a card. */
async function askFromForm(
  services: BotServices,
  form: SubmittedForm,
  tell: (message: SlackMessage) => Promise<void>,
  log: AppLogger,
): Promise<void> {
  const { entry, meta, fields } = form;
  if (!(await claimOnce(services.redis, services.config.redis.prefix, `view:${form.viewId}`, 86_400))) {
    log.info('duplicate submission of a modal ignored');
    return;
  }
  // The binding is read again, not taken from the form: a channel bound to another client since it opened
  // must not run a form filled for the one before (its metadata names that client).
  const admitted = await services.requests.admit({
    requester: form.user,
    entry,
    approved: entry.guarded,
    clientId: meta.clientId,
    channel: meta.channel,
  });
  const requestKey = requestKeys.form(form.viewId);
  if (entry.guarded) {
    // A guarded action's form asks for an approval: the card is the answer.
    const thread = meta.thread ? { threadTs: meta.thread } : {};
    await requestApprovalAs(services, admitted, { fields, requestKey, ...thread });
    return;
  }
  const replyTo = slackReplyTarget(meta.channel);
  await answerRequest(
    await services.requests.submitAdmitted(admitted, { fields, replyTo, requestKey }),
    tell,
    log,
  );
}
