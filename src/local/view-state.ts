/**
 * Builds a view_submission's state.values from a modal's input blocks and the values a test (or a person
 * at the console) typed, shaped per element type the way Slack's client sends them.
 */

type Obj = Record<string, unknown>;
export type InputValues = Record<string, string | string[]>;

interface Option {
  text: Obj;
  value: string;
}

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const plain = (text: string) => ({ type: 'plain_text', text, emoji: true });

function elementOptions(el: Obj): Option[] {
  const groups = Array.isArray(el.option_groups) ? el.option_groups.filter(isObj) : [];
  const all = [
    ...(Array.isArray(el.options) ? el.options : []),
    ...groups.flatMap((g) => g.options as unknown[]),
  ];
  return all.filter(isObj).map((o) => ({ text: o.text as Obj, value: String(o.value) }));
}

/** An option chosen by value or by its visible text; external selects accept anything. */
function pickOption(el: Obj, wanted: string, where: string): Option {
  if (String(el.type).includes('external')) return { text: plain(wanted), value: wanted };
  const options = elementOptions(el);
  const found = options.find((o) => o.value === wanted) ?? options.find((o) => o.text.text === wanted);
  if (!found) {
    const list = options.map((o) => `${o.value} (${String(o.text.text)})`).join(', ');
    throw new Error(`driver: "${wanted}" is not an option of ${where}; options: ${list}`);
  }
  return found;
}

const asList = (v: string | string[]) => (Array.isArray(v) ? v : [v]);
const first = (v: string | string[]) => (Array.isArray(v) ? (v[0] ?? '') : v);

/** The value object for one element: typed input when given, else the element's initial value. */
function elementValue(el: Obj, given: string | string[] | undefined, where: string): Obj {
  const type = String(el.type);
  const base = { type };
  switch (type) {
    case 'plain_text_input':
    case 'email_text_input':
    case 'url_text_input':
    case 'number_input':
    case 'rich_text_input': {
      const value = given !== undefined ? first(given) : (el.initial_value as string | undefined);
      return { ...base, value: value === undefined || value === '' ? null : value };
    }
    case 'static_select':
    case 'external_select':
    case 'radio_buttons':
      if (given === undefined) return { ...base, selected_option: el.initial_option ?? null };
      return { ...base, selected_option: pickOption(el, first(given), where) };
    case 'multi_static_select':
    case 'multi_external_select':
    case 'checkboxes':
      if (given === undefined) return { ...base, selected_options: el.initial_options ?? [] };
      return { ...base, selected_options: asList(given).map((g) => pickOption(el, g, where)) };
    case 'users_select':
      return { ...base, selected_user: given !== undefined ? first(given) : (el.initial_user ?? null) };
    case 'multi_users_select':
      return { ...base, selected_users: given !== undefined ? asList(given) : (el.initial_users ?? []) };
    case 'conversations_select':
      return {
        ...base,
        selected_conversation: given !== undefined ? first(given) : (el.initial_conversation ?? null),
      };
    case 'channels_select':
      return { ...base, selected_channel: given !== undefined ? first(given) : (el.initial_channel ?? null) };
    case 'datepicker':
      return { ...base, selected_date: given !== undefined ? first(given) : (el.initial_date ?? null) };
    case 'timepicker':
      return { ...base, selected_time: given !== undefined ? first(given) : (el.initial_time ?? null) };
    case 'datetimepicker':
      return {
        ...base,
        selected_date_time: given !== undefined ? Number(first(given)) : (el.initial_date_time ?? null),
      };
    default:
      return { ...base, value: given !== undefined ? first(given) : null };
  }
}

function isEmpty(value: Obj): boolean {
  const v = Object.entries(value).find(([k]) => k !== 'type')?.[1];
  return v === null || v === undefined || v === '' || (Array.isArray(v) && v.length === 0);
}

/**
 * state.values for a submission. Keys of `values` are an action_id or "block_id.action_id". A key that
 * names no input, or a required input left empty (Slack's client would not send the form), throws.
 */
export function buildStateValues(blocks: unknown, values: InputValues): Record<string, Record<string, Obj>> {
  const state: Record<string, Record<string, Obj>> = {};
  const used = new Set<string>();
  const available: string[] = [];
  for (const block of Array.isArray(blocks) ? blocks : []) {
    if (!isObj(block) || block.type !== 'input' || !isObj(block.element)) continue;
    const blockId = String(block.block_id);
    const actionId = String(block.element.action_id);
    const longKey = `${blockId}.${actionId}`;
    available.push(longKey);
    const key = longKey in values ? longKey : actionId in values ? actionId : undefined;
    if (key) used.add(key);
    const value = elementValue(block.element, key ? values[key] : undefined, longKey);
    if (!block.optional && isEmpty(value))
      throw new Error(`driver: required input ${longKey} is empty; Slack's client would not submit the form`);
    state[blockId] = { ...(state[blockId] ?? {}), [actionId]: value };
  }
  const unknown = Object.keys(values).filter((k) => !used.has(k));
  if (unknown.length > 0)
    throw new Error(
      `driver: no input named ${unknown.join(', ')}; inputs: ${available.join(', ') || '(none)'}`,
    );
  return state;
}
