import { type DecideOutcome, type Decision, decideApproval, decisionAnswer } from '../approvals/index.js';
import type { BotServices } from '../services.js';
import {
  type ButtonListener,
  channelOf,
  type Interaction,
  interactionOf,
} from '../slack/interaction-pipeline.js';

/** The approval card's buttons: each reads the click, decides through approvals/decide.ts, and answers. */

/** What the person who clicked is told: a refusal says why; a run that could not be queued says why not. */
export async function answerDecision(outcome: DecideOutcome, interaction: Interaction): Promise<void> {
  const message = decisionAnswer(outcome, interaction.log);
  if (message) await interaction.reply(message);
}

/** Approve, Reject and Retry (approvers only), Cancel (the requester only). */
export function approvalButton(services: BotServices, to: Decision): ButtonListener {
  return async function handleApprovalButton({ body, action, context }) {
    const outcome = await decideApproval(services, {
      id: action.value ?? '',
      channel: channelOf(body) ?? '',
      by: body.user.id,
      ...(body.user.team_id ? { team: body.user.team_id } : {}),
      to,
      click: body.trigger_id || action.action_ts,
    });
    await answerDecision(outcome, interactionOf(context));
  };
}
