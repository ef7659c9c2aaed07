import { validateBlocks } from './block-kit-limits.js';
import type { FakeMessage, ResponsePayload, ResponseSource } from './fake-types.js';
import { nextTs } from './ids.js';
import type { MethodContext } from './method-context.js';
import { truthy, withGeneratedIds } from './normalize.js';
import { checkView, isResult, openOn, replaceView } from './view-methods.js';

type Outcome = { ok: boolean; error?: string; errors?: string[] };
type Target = { channel: string; user: string; source?: ResponseSource };

function sourceMessage(ctx: MethodContext, target: Target): FakeMessage | undefined {
  const { source } = target;
  if (!source) return undefined;
  if (source.ephemeral)
    return ctx.state.ephemeralMessages.find((m) => m.ts === source.ts && m.channel === target.channel);
  return ctx.state.find(target.channel, source.ts);
}

/**
 * What Slack does with a response_url POST or an ack body: delete or replace the message the interaction
 * came from, or post a new message, ephemeral to the user unless response_type is in_channel.
 */
export function recordResponse(
  ctx: MethodContext,
  target: Target,
  payload: ResponsePayload,
  via: 'response_url' | 'ack',
): Outcome {
  if (truthy(payload.delete_original)) {
    const original = sourceMessage(ctx, target);
    if (!original) return { ok: false, error: 'message_not_found' };
    const list = original.ephemeral ? ctx.state.ephemeralMessages : ctx.state.list(target.channel);
    list.splice(list.indexOf(original), 1);
    return { ok: true };
  }
  const hasBlocks = Array.isArray(payload.blocks);
  if (!payload.text && !hasBlocks) return { ok: false, error: 'no_text' };
  if (hasBlocks) {
    const errors = validateBlocks(payload.blocks, 'message');
    if (errors.length > 0) return { ok: false, error: 'invalid_blocks', errors };
  }
  const blocks = hasBlocks ? withGeneratedIds(payload.blocks) : undefined;
  if (truthy(payload.replace_original)) {
    const original = sourceMessage(ctx, target);
    if (!original) return { ok: false, error: 'message_not_found' };
    original.text = payload.text ?? '';
    if (blocks) original.blocks = blocks;
    else delete original.blocks;
    return { ok: true };
  }
  const inChannel = payload.response_type === 'in_channel';
  const message: FakeMessage = {
    ts: nextTs(),
    channel: target.channel,
    user: ctx.botUserId,
    bot_id: ctx.botId,
    text: payload.text ?? '',
    ...(blocks ? { blocks } : {}),
    ...(payload.thread_ts ? { thread_ts: payload.thread_ts } : {}),
    ...(inChannel ? {} : { ephemeral: true, forUser: target.user }),
    via,
  };
  if (inChannel) ctx.state.list(target.channel).push(message);
  else ctx.state.ephemeralMessages.push(message);
  return { ok: true };
}

/** What Slack's client does with the app's answer to a view_submission. */
export function applyViewResponse(ctx: MethodContext, viewId: string, body: unknown): Outcome {
  const fake = ctx.state.views.get(viewId);
  if (!fake) return { ok: false, error: 'not_found' };
  const answer = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const action = answer.response_action;
  if (action === undefined) {
    // An empty 200 closes the submitted view (the one below it shows again).
    const stack = ctx.state.stack(fake.user);
    stack.splice(stack.indexOf(viewId), 1);
    ctx.state.views.delete(viewId);
    return { ok: true };
  }
  if (action === 'clear') {
    ctx.state.closeViews(fake.user, true);
    return { ok: true };
  }
  if (action === 'errors') {
    const errors = answer.errors;
    if (typeof errors !== 'object' || errors === null) return { ok: false, error: 'invalid_errors' };
    fake.errors = Object.fromEntries(Object.entries(errors).map(([k, v]) => [k, String(v)]));
    return { ok: true };
  }
  if (action === 'update' || action === 'push') {
    const input = checkView(ctx, answer.view, action === 'update' ? fake.id : undefined);
    if (isResult(input)) return { ok: false, error: String(input.error), errors: input.errors as string[] };
    if (action === 'update') {
      replaceView(ctx, fake, input);
      return { ok: true };
    }
    const pushed = openOn(ctx, fake.user, input, '', true);
    return pushed.ok ? { ok: true } : { ok: false, error: pushed.error };
  }
  return { ok: false, error: 'invalid_response_action' };
}
