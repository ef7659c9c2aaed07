import { validateHomeView, validateView } from './block-kit-limits.js';
import type { FakeView } from './fake-types.js';
import { randomId } from './ids.js';
import {
  fail,
  failValidation,
  type MethodContext,
  type MethodHandler,
  type MethodResult,
} from './method-context.js';
import { buildViewObject } from './normalize.js';

type Obj = Record<string, unknown>;
const MAX_STACK = 3;

/** A trigger is good once, for triggerTtlMs after it was issued; returns its user or Slack's error. */
function useTrigger(ctx: MethodContext, triggerId: unknown): MethodResult | string {
  if (typeof triggerId !== 'string' || !triggerId) return fail('invalid_arguments');
  const trigger = ctx.state.triggers.get(triggerId);
  if (!trigger) return fail('invalid_trigger_id');
  if (Date.now() > trigger.expiresAt) return fail('expired_trigger_id');
  if (trigger.used) return fail('trigger_exchanged');
  trigger.used = true;
  return trigger.user;
}

function checkView(ctx: MethodContext, view: unknown, exceptId?: string): MethodResult | Obj {
  const errors = validateView(view);
  if (errors.length > 0) return failValidation('invalid_arguments', errors);
  const input = view as Obj;
  if (typeof input.external_id === 'string' && input.external_id) {
    const taken = [...ctx.state.views.values()].some(
      (v) => v.id !== exceptId && v.view.external_id === input.external_id,
    );
    if (taken) return fail('duplicate_external_id');
  }
  return input;
}

const isResult = (v: unknown): v is MethodResult => typeof v === 'object' && v !== null && 'ok' in v;

function openOn(
  ctx: MethodContext,
  user: string,
  input: Obj,
  triggerId: string,
  push: boolean,
): MethodResult {
  const stack = ctx.state.stack(user);
  if (!push) ctx.state.closeViews(user, true);
  if (push && stack.length >= MAX_STACK) return fail('push_limit_reached');
  const id = randomId('V');
  const root = push && stack[0] ? stack[0] : id;
  const previous = push ? (stack.at(-1) ?? null) : null;
  const view = buildViewObject(input, {
    id,
    teamId: ctx.teamId,
    appId: ctx.appId,
    botId: ctx.botId,
    rootViewId: root,
    previousViewId: previous,
  });
  const fake: FakeView = { id, hash: String(view.hash), user, trigger_id: triggerId, view };
  ctx.state.views.set(id, fake);
  stack.push(id);
  return { ok: true, view };
}

const open: MethodHandler = (ctx, args) => {
  const input = checkView(ctx, args.view);
  if (isResult(input)) return input;
  const user = useTrigger(ctx, args.trigger_id);
  if (typeof user !== 'string') return user;
  return openOn(ctx, user, input, String(args.trigger_id), false);
};

const push: MethodHandler = (ctx, args) => {
  const input = checkView(ctx, args.view);
  if (isResult(input)) return input;
  const user = useTrigger(ctx, args.trigger_id);
  if (typeof user !== 'string') return user;
  return openOn(ctx, user, input, String(args.trigger_id), true);
};

/** Replaces an open view's content in place (same id, new hash), so references tests hold stay current. */
export function replaceView(ctx: MethodContext, fake: FakeView, input: Obj): void {
  const view = buildViewObject(input, {
    id: fake.id,
    teamId: ctx.teamId,
    appId: ctx.appId,
    botId: ctx.botId,
    rootViewId: String(fake.view.root_view_id),
    previousViewId: fake.view.previous_view_id ?? null,
  });
  fake.view = view;
  fake.hash = String(view.hash);
  delete fake.errors;
}

const update: MethodHandler = (ctx, args) => {
  const views = [...ctx.state.views.values()];
  let fake: FakeView | undefined;
  if (typeof args.view_id === 'string' && args.view_id) fake = ctx.state.views.get(args.view_id);
  else if (typeof args.external_id === 'string' && args.external_id)
    fake = views.find((v) => v.view.external_id === args.external_id);
  else return fail('invalid_arguments');
  if (!fake) return fail('not_found');
  if (typeof args.hash === 'string' && args.hash && args.hash !== fake.hash) return fail('hash_conflict');
  const input = checkView(ctx, args.view, fake.id);
  if (isResult(input)) return input;
  replaceView(ctx, fake, input);
  return { ok: true, view: fake.view };
};

/** A person's Home tab: one per user, replaced by each publish; `hash` refuses to replace a newer one. */
const publish: MethodHandler = (ctx, args) => {
  const user = typeof args.user_id === 'string' ? args.user_id : '';
  if (!user) return fail('invalid_arguments');
  if (!ctx.state.users.has(user)) return fail('user_not_found');
  const errors = validateHomeView(args.view);
  if (errors.length > 0) return failValidation('invalid_arguments', errors);
  const id = ctx.state.homes.get(user);
  const current = id ? ctx.state.views.get(id) : undefined;
  if (typeof args.hash === 'string' && args.hash && current && args.hash !== current.hash)
    return fail('hash_conflict');
  if (current) {
    replaceView(ctx, current, args.view as Obj);
    return { ok: true, view: current.view };
  }
  const viewId = randomId('V');
  const view = buildViewObject(args.view as Obj, {
    id: viewId,
    teamId: ctx.teamId,
    appId: ctx.appId,
    botId: ctx.botId,
    rootViewId: viewId,
    previousViewId: null,
  });
  ctx.state.views.set(viewId, { id: viewId, hash: String(view.hash), user, view });
  ctx.state.homes.set(user, viewId);
  return { ok: true, view };
};

export const viewMethods: Record<string, MethodHandler> = {
  'views.publish': publish,
  'views.open': open,
  'views.push': push,
  'views.update': update,
};

export { checkView, isResult, openOn };
