import type { ActionEntry } from '../actions/index.js';
import { ARGUMENTS_ERROR_KEY, parseActionArgs } from '../actions/index.js';
import { requestApprovalAs } from '../approvals/index.js';
import { type Admitted, requestKeys, UserError, UserErrorCode } from '../requests/index.js';
import { openActionModal } from '../slack/open-action-modal.js';
import { answerRequest } from '../slack/person-answers.js';
import { slackReplyTarget } from '../slack/reply-target.js';
import type { CommandContext } from './command-context.js';

/**
 * Every action command, driven by its catalogue entry: fields from the command line, a modal when fields are
 * missing or worth choosing (its submission carries on: interactions/action-modal-submission.ts), then the
 * request layer; a guarded action (`/gateway deploy`, `/gateway email`) is asked for, never run, and its answer
 * is an approval card in the channel. The person, the channel's binding and the action rule are admitted once
 * for the command, before any form opens (someone who may not run it should not fill one in first); the request
 * or the card takes them as they are.
 */
export async function runActionCommand(ctx: CommandContext, entry: ActionEntry): Promise<void> {
  const ready = await commandFields(ctx, entry);
  if (!ready) return;
  const { admitted, fields } = ready;
  // A redelivered command is one job, or one card.
  const requestKey = requestKeys.command(ctx.triggerId);
  if (entry.guarded) {
    await requestApprovalAs(ctx.services, admitted, { fields, requestKey });
    return;
  }
  const replyTo = slackReplyTarget(ctx.channel);
  const result = await ctx.services.requests.submitAdmitted(admitted, { fields, replyTo, requestKey });
  // A refusal is the command's error (counted as one), answered like any other.
  if (result.kind === 'refused') throw result.error;
  await answerRequest(result, ctx.reply, ctx.logger);
}

/**
 * Admits the person (the binding as the router read it with the command's claim), then the fields from the
 * command line: invalid ones are the person's error, missing ones open the modal (and this gives none). The
 * binding is needed before the form as well as at its submission: the form loads its choices for that client and
 * carries it, so the submission, which reads the binding again, refuses a channel bound to another since.
 */
async function commandFields(
  ctx: CommandContext,
  entry: ActionEntry,
): Promise<{ admitted: Admitted; fields: Record<string, unknown> } | undefined> {
  const admitted = await ctx.services.requests.admit({
    requester: ctx.user,
    entry,
    // A guarded action may be asked for: its run waits for the approval.
    approved: entry.guarded,
    binding: await ctx.binding(),
  });
  const parsed = parseActionArgs(entry, ctx.args);
  if (parsed.kind === 'invalid') {
    const problems = Object.entries(parsed.errors).map(([field, message]) =>
      field === ARGUMENTS_ERROR_KEY ? `• ${message}` : `• \`${field}\`: ${message}`,
    );
    throw new UserError(UserErrorCode.BadArguments, `That ${entry.label} request is not valid.`, {
      detail: problems.join('\n'),
      usage: parsed.usage,
    });
  }
  if (parsed.kind === 'needs-modal') {
    await openActionModal(ctx.services, {
      entry,
      triggerId: ctx.triggerId,
      channel: ctx.channel,
      clientId: admitted.binding.clientId,
      prefill: parsed.prefill,
    });
    return undefined;
  }
  return { admitted, fields: parsed.fields };
}
