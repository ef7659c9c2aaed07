import type { ActionEntry } from '../actions/index.js';
import { ARGUMENTS_ERROR_KEY, parseActionArgs } from '../actions/index.js';
import type { ChannelBinding } from '../bindings/index.js';
import { UserError, UserErrorCode } from '../requests/index.js';
import { openActionModal } from '../slack/open-action-modal.js';
import type { CommandContext } from './command-context.js';

/**
 * The part every action command shares, run or asked for: the channel's binding, a refusal before any form
 * (someone who may not run it should not fill one in first), then the fields from the command line: invalid
 * ones are the person's error, missing ones open the modal (its submission carries on, and this gives none).
 */
export async function commandFields(
  ctx: CommandContext,
  entry: ActionEntry,
  approved: boolean,
): Promise<{ binding: ChannelBinding; fields: Record<string, unknown> } | undefined> {
  const binding = await ctx.binding();
  const refusal = await ctx.services.requests.refusal(ctx.user, entry, approved);
  if (refusal) throw refusal;
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
      clientId: binding.clientId,
      prefill: parsed.prefill,
    });
    return undefined;
  }
  return { binding, fields: parsed.fields };
}
