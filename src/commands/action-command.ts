import type { ActionEntry } from '../actions/catalogue.js';
import { parseActionArgs } from '../actions/catalogue.js';
import { openActionModal } from '../interactions/open-action-modal.js';
import type { CommandContext } from './context.js';
import { guardedRefusal, submitAction } from './submit-action.js';
import { UserError, UserErrorCode } from './user-error.js';

/**
 * Every action command, driven by its catalogue entry: fields from the command line, a modal when fields are
 * missing or worth choosing, then the same submission path as the modal.
 */
export async function runActionCommand(ctx: CommandContext, entry: ActionEntry): Promise<void> {
  const binding = await ctx.binding();
  if (!entry.available) {
    throw new UserError(
      UserErrorCode.Unavailable,
      `The gateway no longer lists the \`${entry.action}\` action.`,
      {
        hint: '`/gateway help` lists what it offers now.',
      },
    );
  }
  // Before a modal opens: someone who may not run it should not fill in a form first.
  await ctx.services.access.requireAction(ctx.user, entry);
  if (entry.guarded) throw guardedRefusal(entry);
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
  await submitAction(
    ctx.services,
    ctx.client,
    {
      entry,
      fields: parsed.fields,
      binding,
      channel: ctx.channel,
      user: ctx.user,
      jobKey: `cmd-${ctx.triggerId}`,
    },
    ctx.reply,
  );
}
