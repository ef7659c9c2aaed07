import { validateBlocks } from './block-kit-limits.js';
import type { FakeMessage } from './fake-types.js';
import { nextTs } from './ids.js';
import {
  fail,
  failValidation,
  type MethodContext,
  type MethodHandler,
  type MethodResult,
  messageObject,
} from './method-context.js';
import { truthy, withGeneratedIds } from './normalize.js';

const MAX_TEXT = 40_000;
type Content = { text: string; blocks?: unknown[] };

/** The checks chat.postMessage, chat.postEphemeral and chat.update share, in Slack's order. */
function checkContent(args: Record<string, unknown>): MethodResult | Content {
  const text = typeof args.text === 'string' ? args.text : undefined;
  const hasBlocks = args.blocks !== undefined && args.blocks !== '';
  if (!text && !hasBlocks && args.attachments === undefined) return fail('no_text');
  if (text && text.length > MAX_TEXT) return fail('msg_too_long');
  if (hasBlocks) {
    const errors = validateBlocks(args.blocks, 'message');
    if (errors.length > 0) return failValidation('invalid_blocks', errors);
  }
  return { text: text ?? '', blocks: hasBlocks ? withGeneratedIds(args.blocks) : undefined };
}

const isFailure = (r: MethodResult | Content): r is MethodResult => 'ok' in r;

/** The channel a bot may post in, or the error Slack gives. */
function postableChannel(ctx: MethodContext, args: Record<string, unknown>): MethodResult | string {
  const ch = typeof args.channel === 'string' ? ctx.state.channel(args.channel) : undefined;
  if (!ch) return fail('channel_not_found');
  if (ch.archived) return fail('is_archived');
  if (!ch.botIsMember) return fail('not_in_channel');
  return ch.id;
}

const postMessage: MethodHandler = (ctx, args) => {
  const channel = postableChannel(ctx, args);
  if (typeof channel !== 'string') return channel;
  const content = checkContent(args);
  if (isFailure(content)) return content;
  const threadTs = typeof args.thread_ts === 'string' && args.thread_ts ? args.thread_ts : undefined;
  const message: FakeMessage = {
    ts: nextTs(),
    channel,
    user: ctx.botUserId,
    bot_id: ctx.botId,
    text: content.text,
    ...(content.blocks ? { blocks: content.blocks } : {}),
    ...(threadTs ? { thread_ts: threadTs } : {}),
    ...(threadTs && truthy(args.reply_broadcast) ? { broadcast: true } : {}),
    ...(args.metadata !== undefined ? { metadata: args.metadata } : {}),
    via: 'api',
  };
  if (threadTs) {
    const parent = ctx.state.find(channel, threadTs);
    if (parent) {
      parent.thread_ts = parent.ts;
      parent.reply_count = (parent.reply_count ?? 0) + 1;
    }
  }
  ctx.state.list(channel).push(message);
  return { ok: true, channel, ts: message.ts, message: messageObject(ctx, message) };
};

const update: MethodHandler = (ctx, args) => {
  const ch = typeof args.channel === 'string' ? ctx.state.channel(args.channel) : undefined;
  if (!ch) return fail('channel_not_found');
  const message = ctx.state.find(ch.id, String(args.ts ?? ''));
  if (!message) return fail('message_not_found');
  if (message.bot_id !== ctx.botId) return fail('cant_update_message');
  const content = checkContent(args);
  if (isFailure(content)) return content;
  if (typeof args.text === 'string') message.text = content.text;
  if (args.blocks !== undefined) message.blocks = content.blocks;
  if (args.metadata !== undefined) message.metadata = args.metadata;
  message.edited = { user: ctx.botUserId, ts: nextTs() };
  return {
    ok: true,
    channel: ch.id,
    ts: message.ts,
    text: message.text,
    message: messageObject(ctx, message),
  };
};

const deleteMessage: MethodHandler = (ctx, args) => {
  const ch = typeof args.channel === 'string' ? ctx.state.channel(args.channel) : undefined;
  if (!ch) return fail('channel_not_found');
  const list = ctx.state.list(ch.id);
  const index = list.findIndex((m) => m.ts === args.ts);
  const message = list[index];
  if (!message) return fail('message_not_found');
  if (message.bot_id !== ctx.botId) return fail('cant_delete_message');
  list.splice(index, 1);
  const parent =
    message.thread_ts && message.thread_ts !== message.ts
      ? ctx.state.find(ch.id, message.thread_ts)
      : undefined;
  if (parent?.reply_count) parent.reply_count -= 1;
  return { ok: true, channel: ch.id, ts: message.ts };
};

const postEphemeral: MethodHandler = (ctx, args) => {
  if (typeof args.user !== 'string' || !args.user) return fail('user_not_found');
  const channel = postableChannel(ctx, args);
  if (typeof channel !== 'string') return channel;
  const content = checkContent(args);
  if (isFailure(content)) return content;
  const ts = nextTs();
  ctx.state.ephemeralMessages.push({
    ts,
    channel,
    user: ctx.botUserId,
    bot_id: ctx.botId,
    text: content.text,
    ...(content.blocks ? { blocks: content.blocks } : {}),
    ...(typeof args.thread_ts === 'string' && args.thread_ts ? { thread_ts: args.thread_ts } : {}),
    ephemeral: true,
    forUser: args.user,
    via: 'api',
  });
  return { ok: true, message_ts: ts };
};

const getPermalink: MethodHandler = (ctx, args) => {
  const ch = typeof args.channel === 'string' ? ctx.state.channel(args.channel) : undefined;
  if (!ch) return fail('channel_not_found');
  const ts = String(args.message_ts ?? '');
  if (!ctx.state.find(ch.id, ts)) return fail('message_not_found');
  return { ok: true, channel: ch.id, permalink: `${ctx.origin}/archives/${ch.id}/p${ts.replace('.', '')}` };
};

export const chatMethods: Record<string, MethodHandler> = {
  'chat.postMessage': postMessage,
  'chat.update': update,
  'chat.delete': deleteMessage,
  'chat.postEphemeral': postEphemeral,
  'chat.getPermalink': getPermalink,
};
