import type { FakeFunctionRun, FakeMessage, FakeSlack, FakeView } from './fake-slack/index.js';

/** Interaction payloads shaped like Slack's (bolt-python scenario tests, java-slack-sdk json-logs samples). */

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export type ButtonQuery = string | { actionId?: string; text?: string; value?: string };

export interface FoundButton {
  blockId: string;
  element: Obj;
}

/** Every button of a message or view: in actions blocks and as section accessories. */
function listButtons(blocks: unknown): FoundButton[] {
  const found: FoundButton[] = [];
  for (const block of Array.isArray(blocks) ? blocks : []) {
    if (!isObj(block)) continue;
    const blockId = String(block.block_id ?? '');
    const candidates = block.type === 'actions' && Array.isArray(block.elements) ? [...block.elements] : [];
    if (block.type === 'section' && block.accessory) candidates.push(block.accessory);
    for (const el of candidates) if (isObj(el) && el.type === 'button') found.push({ blockId, element: el });
  }
  return found;
}

const buttonText = (el: Obj) => (isObj(el.text) ? String(el.text.text) : '');

/** Finds a button by action_id, then visible text, then value; throws listing what is there. */
export function findButton(blocks: unknown, query: ButtonQuery): FoundButton {
  const buttons = listButtons(blocks);
  const matches = (b: FoundButton): boolean => {
    if (typeof query === 'string') return false;
    return (
      (query.actionId === undefined || b.element.action_id === query.actionId) &&
      (query.text === undefined || buttonText(b.element) === query.text) &&
      (query.value === undefined || b.element.value === query.value)
    );
  };
  const hit =
    typeof query === 'string'
      ? (buttons.find((b) => b.element.action_id === query) ??
        buttons.find((b) => buttonText(b.element) === query) ??
        buttons.find((b) => b.element.value === query))
      : buttons.find(matches);
  if (hit) return hit;
  const list = buttons
    .map(
      (b) =>
        `"${buttonText(b.element)}" (action_id=${String(b.element.action_id)}, value=${String(b.element.value)})`,
    )
    .join(', ');
  throw new Error(`driver: no button matches ${JSON.stringify(query)}; buttons: ${list || '(none)'}`);
}

export function isFakeView(target: FakeMessage | FakeView): target is FakeView {
  return 'view' in target && 'hash' in target;
}

export interface Actor {
  user: string;
  slack: FakeSlack;
  appId: string;
  teamId: string;
}

function userObject(a: Actor): Obj {
  const name = a.slack.userName(a.user);
  // A Slack Connect user's clicks carry their own workspace's team id.
  return { id: a.user, username: name, name, team_id: a.slack.userTeam(a.user) };
}

export function messageObject(slack: FakeSlack, m: FakeMessage): Obj {
  return {
    type: 'message',
    ...(m.bot_id ? { bot_id: m.bot_id, app_id: slack.appId } : {}),
    user: m.user,
    text: m.text,
    ts: m.ts,
    team: slack.teamId,
    ...(m.blocks ? { blocks: m.blocks } : {}),
    ...(m.thread_ts ? { thread_ts: m.thread_ts } : {}),
    ...(m.reply_count !== undefined ? { reply_count: m.reply_count } : {}),
    ...(m.edited ? { edited: m.edited } : {}),
  };
}

export function actionObject(found: FoundButton): Obj {
  const el = found.element;
  return {
    action_id: el.action_id,
    block_id: found.blockId,
    text: el.text,
    ...(el.value !== undefined ? { value: el.value } : {}),
    ...(el.style !== undefined ? { style: el.style } : {}),
    type: 'button',
    action_ts: (Date.now() / 1000).toFixed(6),
  };
}

/** The parts every interaction payload shares. */
export function basePayload(a: Actor, type: string, token: string): Obj {
  return {
    type,
    user: userObject(a),
    api_app_id: a.appId,
    token,
    team: { id: a.teamId, domain: a.slack.teamDomain },
    enterprise: null,
    is_enterprise_install: false,
  };
}

/** The `function_executed` event of a step run, as Slack sends it (the fields Bolt and the bot read). */
export function functionEvent(run: FakeFunctionRun, appId: string, now: number): Record<string, unknown> {
  const at = Math.floor(now);
  return {
    type: 'function_executed',
    function: {
      id: `Fn${run.callbackId
        .toUpperCase()
        .replace(/[^A-Z0-9]/g, '')
        .slice(0, 10)}`,
      callback_id: run.callbackId,
      title: run.callbackId,
      type: 'app',
      input_parameters: [],
      output_parameters: [],
      app_id: appId,
      date_created: at,
      date_updated: at,
      date_deleted: 0,
    },
    inputs: run.inputs,
    function_execution_id: run.executionId,
    workflow_execution_id: run.workflowExecutionId,
    event_ts: now.toFixed(6),
    bot_access_token: run.token,
  };
}
