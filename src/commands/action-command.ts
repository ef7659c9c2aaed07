import type { ActionEntry } from '../actions/catalogue.js';
import { parseActionArgs } from '../actions/parse-args.js';
import { slackReplyTarget } from '../jobs/reply-target.js';
import { requestKeys } from '../requests/request-keys.js';
import { UserError, UserErrorCode } from '../requests/user-error.js';
import { answerRequest } from '../slack/answer-request.js';
import { openActionModal } from '../slack/open-action-modal.js';
import type { CommandContext } from './command-context.js';

/**
 * Every action command, driven by its catalogue entry: fields from the command line, a modal when fields are
 * missing or worth choosing, then the request layer, as the modal's submission does.
 */
export async function runActionCommand(ctx: CommandContext, entry: ActionEntry): Promise<void> {
  const binding = await ctx.binding();
  // Before a modal opens: someone who may not run it should not fill in a form first.
  const refusal = await ctx.services.requests.refusal(ctx.user, entry);
  if (refusal) throw refusal;
  const parsed = parseActionArgs(entry, ctx.args);
  if (parsed.kind === 'invalid') {
    const problems = Object.entries(parsed.errors).map(([field, message]) => `• \`${field}\`: ${message}`);
    throw new UserError(UserErrorCode.BadArguments, `That ${entry.label} request is not valid.`, {
      detail: problems.join('\n'),
      usage: parsed.usage,
    });
  }
  if (parsed.kind === 'needs-modal') {
    await openActionModal(ctx.services, ctx.client, {
      entry,
      triggerId: ctx.triggerId,
      channel: ctx.channel,
      clientId: binding.clientId,
      prefill: parsed.prefill,
    });
    return;
  }
  const result = await ctx.services.requests.submit({
    requester: ctx.user,
    clientId: binding.clientId,
    action: entry.action,
    fields: parsed.fields,
    replyTo: slackReplyTarget(ctx.channel),
    requestKey: requestKeys.command(ctx.triggerId),
  });
  // A refusal is the command's error (counted as one), answered like any other.
  if (result.kind === 'refused') throw result.error;
  await answerRequest(result, ctx.reply, ctx.logger);
}
