import { viewDeployPost } from '../approvals/index.js';
import type { BotServices } from '../services.js';
import { type ButtonListener, channelOf, interactionOf } from '../slack/interaction-pipeline.js';
import { buildApprovalRefusal } from '../views/approval-card.js';
import { buildPostModal } from '../views/approval-post.js';

/** A sign-off card's View: reads the click, asks approvals/ whether the person may see it, opens the post. */
export function viewPostButton(services: BotServices): ButtonListener {
  return async function handleViewPost({ body, action, context }) {
    const outcome = await viewDeployPost(services, {
      id: action.value ?? '',
      channel: channelOf(body) ?? '',
      by: body.user.id,
      ...(body.user.team_id ? { team: body.user.team_id } : {}),
    });
    if (outcome.kind === 'refused') {
      await interactionOf(context).reply(buildApprovalRefusal({ kind: 'outsider' }));
      return;
    }
    await services.outbound.openModal(body.trigger_id, buildPostModal(outcome.record, outcome.row));
  };
}
