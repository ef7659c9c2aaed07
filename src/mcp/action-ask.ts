import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { ActionEntry } from '../actions/index.js';
import { validateActionFields } from '../actions/index.js';
import { payloadHash, requestApproval } from '../approvals/index.js';
import { slackReplyTarget } from '../slack/reply-target.js';
import type { Args, Prepared } from './action-tool-specs.js';
import { str } from './action-tool-specs.js';
import { noSuchClient, type ToolContext, ToolRefusal } from './context.js';

/**
 * Asking for one action as an assistant's person, through the request layer exactly as `/gateway` does, and the
 * job reference the tool answers with.
 */

/** Output of every action tool: the job reference. */
export const referenceSchema = z.object({
  job_id: z.string().nullable(),
  status: z.enum(['queued', 'pending_approval', 'duplicate', 'refused']),
  ahead: z.number().nullable(),
  eta_s: z.number().nullable(),
  channel: z.string().nullable(),
  message_link: z.string().nullable(),
  reason: z.string().optional().describe('Why it was refused, or what the duplicate is'),
  earlier: z.record(z.string(), z.unknown()).optional().describe('The earlier record or request (duplicate)'),
});
type Reference = z.infer<typeof referenceSchema>;

const empty = (status: Reference['status'], reason: string, extra: Partial<Reference> = {}): Reference => ({
  job_id: null,
  status,
  ahead: null,
  eta_s: null,
  channel: null,
  message_link: null,
  reason,
  ...extra,
});

/**
 * The channel the job reports to: one of the client's bound channels the person reaches, by their membership
 * as Slack tells it now (not a cached list: an action is not taken on the strength of a channel they left).
 */
async function targetChannel(ctx: ToolContext, clientId: string, asked: string | undefined): Promise<string> {
  const reach = await ctx.services.reach.forAction(ctx.caller.user);
  if (!ctx.services.reach.reaches(reach, clientId)) throw noSuchClient(clientId);
  const channels = await ctx.services.reach.targets(reach, clientId);
  if (channels.length === 0)
    throw new ToolRefusal(
      'This client is bound to no Slack channel the job could report in: bind one with `/gateway use <client_id>` (admins).',
    );
  if (!asked) return channels[0] as string;
  if (!channels.includes(asked))
    throw new ToolRefusal(`\`${asked}\` is not one of this client’s bound channels: ${channels.join(', ')}.`);
  return asked;
}

/** Asks for one action as the caller; the job reference. */
export async function ask(
  ctx: ToolContext,
  entry: ActionEntry,
  args: Args,
  prepared: Prepared,
): Promise<Reference> {
  const id = String(args.client_id);
  const channel = await targetChannel(ctx, id, str(args.channel));
  const checked = validateActionFields(entry, prepared.fields);
  if (!checked.ok)
    throw new ToolRefusal(
      `Not valid: ${Object.entries(checked.errors)
        .map(([k, v]) => `${k}: ${v}`)
        .join('; ')}`,
    );
  const asked: Asked = {
    entry,
    clientId: id,
    channel,
    fields: checked.fields,
    requestKey: `mcp-${randomUUID()}`,
  };
  if (entry.guarded) return askApproval(ctx, asked, prepared.post);
  return askQueued(ctx, asked, args.confirm_duplicate === true);
}

interface Asked {
  entry: ActionEntry;
  clientId: string;
  channel: string;
  fields: Record<string, unknown>;
  requestKey: string;
}

/** A guarded action: its approval card, or the identical request that already waits for one. */
async function askApproval(ctx: ToolContext, asked: Asked, post: Prepared['post']): Promise<Reference> {
  const { services } = ctx;
  const { entry, clientId, channel, fields } = asked;
  const record = await requestApproval(services, {
    entry,
    requester: ctx.caller.user,
    channel,
    clientId,
    fields,
    requestKey: asked.requestKey,
    viaAssistant: true,
    ...(post ? { post } : {}),
  });
  if (!record) {
    // The identical request in flight here: its reference, so get_job follows it.
    const held = await services.approvals.inFlight(channel, payloadHash(entry.action, clientId, fields));
    const link = held?.cardTs ? await services.outbound.permalink(channel, held.cardTs) : undefined;
    return empty('duplicate', 'An identical request already waits for approval in this channel.', {
      channel,
      ...(held
        ? {
            job_id: `approval-${held.id}`,
            message_link: link ?? null,
            earlier: {
              job_id: `approval-${held.id}`,
              state: held.state,
              requested_by: held.requestedBy,
              requested_at: new Date(held.createdAt).toISOString(),
              fields: held.fields,
            },
          }
        : {}),
    });
  }
  const link = record.cardTs ? await services.outbound.permalink(channel, record.cardTs) : undefined;
  return {
    job_id: `approval-${record.id}`,
    status: 'pending_approval',
    ahead: null,
    eta_s: null,
    channel,
    message_link: link ?? null,
    reason: 'Waits for an approver’s click on the card in Slack; nothing runs before.',
  };
}

/** Any other action: queued through the request layer, or refused, or a duplicate to confirm. */
async function askQueued(ctx: ToolContext, asked: Asked, confirmed: boolean): Promise<Reference> {
  const { services } = ctx;
  const { channel } = asked;
  const result = await services.requests.submit({
    requester: ctx.caller.user,
    clientId: asked.clientId,
    action: asked.entry.action,
    fields: asked.fields,
    replyTo: slackReplyTarget(channel),
    requestKey: asked.requestKey,
    viaAssistant: true,
    ...(confirmed ? { confirmedDuplicate: true } : {}),
  });
  switch (result.kind) {
    case 'refused':
      return empty('refused', [result.error.title, result.error.options.hint].filter(Boolean).join(' '), {
        channel,
      });
    case 'ask':
      return empty(
        'duplicate',
        'An identical request or record exists; call again with confirm_duplicate: true to run another.',
        { channel, earlier: result.question.earlier },
      );
    default: {
      const ahead = result.kind === 'queued' ? result.ahead : 0;
      const wait = await services.queue.estimateWait(ahead).catch(() => ({ ahead, ms: undefined }));
      const job = await services.queue.findJob(result.jobKey);
      const ts = job?.data.statusTs;
      const link = ts ? await services.outbound.permalink(channel, ts).catch(() => undefined) : undefined;
      return {
        job_id: result.jobKey,
        status: 'queued',
        ahead,
        eta_s: wait.ms ? Math.ceil(wait.ms / 1_000) : 0,
        channel,
        message_link: link ?? null,
      };
    }
  }
}
