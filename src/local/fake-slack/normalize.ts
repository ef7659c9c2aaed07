import { newViewHash, shortId } from './ids.js';

/** Turns what arrives over the wire into what Slack stores and returns. */

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * web-api sends complex arguments (blocks, view, metadata) JSON-encoded inside a form body; Slack decodes
 * them. A field that does not parse stays a string, and then fails validation like it would on Slack.
 */
export function decodeArgs(raw: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (typeof value === 'string' && /^\s*[[{]/.test(value)) {
      try {
        out[key] = JSON.parse(value);
        continue;
      } catch {
        // not JSON after all: keep the string
      }
    }
    out[key] = value;
  }
  return out;
}

const truthy = (v: unknown): boolean => v === true || v === 'true' || v === '1' || v === 1;

export { truthy };

function withElementId(el: unknown): unknown {
  if (!isObj(el) || el.type === 'image' || typeof el.action_id === 'string') return el;
  // Slack generates action ids for interactive elements that have none.
  return { ...el, action_id: shortId() };
}

/** A deep copy with Slack's generated block_id / action_id filled in, so clicks always carry both. */
export function withGeneratedIds(blocks: unknown): unknown[] | undefined {
  if (!Array.isArray(blocks)) return undefined;
  return blocks.map((b) => {
    if (!isObj(b)) return b;
    const copy: Obj = structuredClone(b);
    if (typeof copy.block_id !== 'string') copy.block_id = shortId();
    if (copy.type === 'actions' && Array.isArray(copy.elements))
      copy.elements = copy.elements.map(withElementId);
    if (copy.type === 'section' && copy.accessory) copy.accessory = withElementId(copy.accessory);
    if (copy.type === 'input' && copy.element) copy.element = withElementId(copy.element);
    return copy;
  });
}

export interface ViewIdentity {
  id: string;
  teamId: string;
  appId: string;
  botId: string;
  rootViewId: string;
  previousViewId: string | null;
}

/** The view object as views.open/push/update return it and as block_actions / view_submission carry it. */
export function buildViewObject(input: Obj, who: ViewIdentity): Obj {
  return {
    id: who.id,
    team_id: who.teamId,
    type: input.type ?? 'modal',
    blocks: withGeneratedIds(input.blocks) ?? [],
    private_metadata: input.private_metadata ?? '',
    callback_id: input.callback_id ?? '',
    state: { values: {} },
    hash: newViewHash(),
    title: input.title,
    clear_on_close: truthy(input.clear_on_close),
    notify_on_close: truthy(input.notify_on_close),
    close: input.close ?? null,
    submit: input.submit ?? null,
    previous_view_id: who.previousViewId,
    root_view_id: who.rootViewId,
    app_id: who.appId,
    external_id: input.external_id ?? '',
    app_installed_team_id: who.teamId,
    bot_id: who.botId,
  };
}
