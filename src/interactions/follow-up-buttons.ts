import { requestApproval } from '../approvals/index.js';
import { type DraftedAction, emailFromDraft, findDraft } from '../jobs/index.js';
import { UserError, UserErrorCode } from '../requests/index.js';
import type { BotServices } from '../services.js';
import { type ButtonListener, channelOf } from '../slack/interaction-pipeline.js';
import { openActionModal } from '../slack/open-action-modal.js';

/**
 * A result's guarded next step: "Request deploy" on a drafted blog post asks for its deploy at
 * once; "Send…" on a drafted outreach email opens the email form prefilled from the draft, editable. Either
 * way the answer is an approval card in the result's thread. The button's value is the draft's job key; the
 * draft is read from that job, never from the button.
 */

async function draftOf(
  services: BotServices,
  guarded: DraftedAction,
  jobKey: string | undefined,
  channel: string | undefined,
) {
  const draft = await findDraft(services.queue, guarded, jobKey, { channel });
  if (!draft) {
    throw new UserError(UserErrorCode.Expired, 'That draft is no longer known to the bot.', {
      hint:
        guarded === 'deploy_blog'
          ? 'Ask with `/gateway deploy <post_id>` instead.'
          : 'Ask with `/gateway email` instead.',
    });
  }
  const entry = (await services.catalogue()).byAction(guarded);
  if (!entry) throw new UserError(UserErrorCode.Unavailable, `The gateway no longer lists \`${guarded}\`.`);
  return { ...draft, entry };
}

const str = (v: unknown) => (typeof v === 'string' ? v : v == null ? '' : String(v));

export function requestDeployButton(services: BotServices): ButtonListener {
  return async function handleRequestDeploy({ body, action }) {
    const channel = channelOf(body);
    const { job, result, entry } = await draftOf(services, 'deploy_blog', action.value, channel);
    const postId = str(job.data.recordId ?? result.id);
    await requestApproval(services, {
      entry,
      requester: body.user.id,
      channel: channel ?? '',
      clientId: job.data.clientId,
      fields: { post_id: postId },
      // A double click is one request; asking again a little later (after a rejection) is a new one.
      requestKey: `deploy-${job.data.jobKey}-${body.user.id}`,
      dedupeSec: 10,
      ...(job.data.statusTs ? { threadTs: job.data.statusTs } : {}),
      ...(typeof result.post_title === 'string' ? { post: { title: result.post_title } } : {}),
    });
  };
}

export function requestSendButton(services: BotServices): ButtonListener {
  return async function handleRequestSend({ body, action }) {
    const channel = channelOf(body);
    const { job, result, entry } = await draftOf(services, 'send_prospect_email', action.value, channel);
    const refusal = await services.requests.refusal(body.user.id, entry, true);
    if (refusal) throw refusal;
    const email = emailFromDraft(result);
    await openActionModal(services, {
      entry,
      triggerId: (body as { trigger_id: string }).trigger_id,
      channel: channel ?? '',
      clientId: job.data.clientId,
      prefill: {
        subject: email.subject ?? '',
        html: email.html ?? '',
        ...(email.to ? { to: email.to } : {}),
      },
      ...(job.data.statusTs ? { thread: job.data.statusTs } : {}),
    });
  };
}
