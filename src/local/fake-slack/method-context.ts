import type { FakeMessage } from './fake-types.js';
import type { FakeState } from './state.js';

/** What every Web API method handler gets: the state and the workspace's identity. */
export interface MethodContext {
  state: FakeState;
  origin: string;
  teamId: string;
  teamDomain: string;
  botUserId: string;
  botId: string;
  appId: string;
  triggerTtlMs: number;
  /** When set, the only app-level token Socket Mode accepts. */
  appToken?: string | undefined;
}

export type MethodResult =
  | { ok: true; [key: string]: unknown }
  | { ok: false; error: string; [key: string]: unknown };
export type MethodHandler = (ctx: MethodContext, args: Record<string, unknown>) => MethodResult;

export const fail = (error: string, extra: Record<string, unknown> = {}): MethodResult => ({
  ok: false,
  error,
  ...extra,
});

/** Slack's invalid_blocks / invalid_arguments shape: the error list plus response_metadata.messages. */
export const failValidation = (error: string, errors: string[]): MethodResult =>
  fail(error, { errors, response_metadata: { messages: errors.map((e) => `[ERROR] ${e}`) } });

/** The message object as chat.* return it and as block_actions carry it. */
export function messageObject(ctx: MethodContext, m: FakeMessage): Record<string, unknown> {
  return {
    type: 'message',
    ...(m.bot_id ? { bot_id: m.bot_id, app_id: ctx.appId } : {}),
    text: m.text,
    user: m.user,
    ts: m.ts,
    team: ctx.teamId,
    ...(m.blocks ? { blocks: m.blocks } : {}),
    ...(m.thread_ts ? { thread_ts: m.thread_ts } : {}),
    ...(m.reply_count !== undefined ? { reply_count: m.reply_count } : {}),
    ...(m.edited ? { edited: m.edited } : {}),
    ...(m.metadata ? { metadata: m.metadata } : {}),
    ...(m.files ? { files: m.files } : {}),
  };
}
