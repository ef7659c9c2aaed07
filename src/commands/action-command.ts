import type { ActionEntry } from '../actions/index.js';
import { requestKeys } from '../requests/index.js';
import { answerRequest } from '../slack/answer-request.js';
import { slackReplyTarget } from '../slack/reply-target.js';
import type { CommandContext } from './command-context.js';
import { commandFields } from './command-fields.js';
import { requestApprovalCommand } from './request-approval.js';

/**
 * Every action command, driven by its catalogue entry: fields from the command line, a modal when fields are
 * missing or worth choosing, then the request layer, as the modal's submission does.
 */
export async function runActionCommand(ctx: CommandContext, entry: ActionEntry): Promise<void> {
  // A guarded action is asked for, never run: an approver decides on its card.
  if (entry.guarded) return requestApprovalCommand(ctx, entry);
  // Before a modal opens: someone who may not run it should not fill in a form first.
  const ready = await commandFields(ctx, entry, false);
  if (!ready) return;
  const result = await ctx.services.requests.submit({
    requester: ctx.user,
    clientId: ready.binding.clientId,
    action: entry.action,
    fields: ready.fields,
    replyTo: slackReplyTarget(ctx.channel),
    requestKey: requestKeys.command(ctx.triggerId),
  });
  // A refusal is the command's error (counted as one), answered like any other.
  if (result.kind === 'refused') throw result.error;
  await answerRequest(result, ctx.reply, ctx.logger);
}
