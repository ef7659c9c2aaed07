import type { ActionEntry } from '../actions/index.js';
import { requestApproval } from '../approvals/index.js';
import { requestKeys } from '../requests/index.js';
import type { CommandContext } from './command-context.js';
import { commandFields } from './command-fields.js';

/**
 * A guarded action's command (`/gateway deploy [post_id]`, `/gateway email`): the same arguments and modal as
 * any action, but the answer is an approval card in the channel, never the POST.
 */
export async function requestApprovalCommand(ctx: CommandContext, entry: ActionEntry): Promise<void> {
  // Missing fields open the modal, whose submission asks for the approval (action-modal-submission.ts).
  const ready = await commandFields(ctx, entry, true);
  if (!ready) return;
  // The card in the channel is the answer; a redelivered command posts no second one.
  await requestApproval(ctx.services, {
    entry,
    requester: ctx.user,
    channel: ctx.channel,
    clientId: ready.binding.clientId,
    fields: ready.fields,
    requestKey: requestKeys.command(ctx.triggerId),
  });
}
