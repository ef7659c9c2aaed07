/**
 * Slack's Block Kit limits, enforced in ONE place. Every view passes its output through
 * `fitMessage` or `fitModal`, so a row of absurd data shortens a message instead of making Slack reject it
 * (`invalid_blocks`), which would leave the person with nothing at all.
 *
 * Must-keep blocks: when a message has too many blocks, the first ones are kept in order, a context block
 * "…and N more not shown" is added, and blocks marked must-keep survive the cut. A block is must-keep when its
 * `block_id` starts with `keep:` (KEEP_BLOCK_PREFIX) or when it is the message's last block and an `actions`
 * block (paging buttons live there).
 */
import type { types } from '@slack/bolt';
import type { SlackMessage } from './blocks.js';

type KnownBlock = types.KnownBlock;
type ModalView = types.ModalView;
type HomeView = types.HomeView;

export const MAX_BLOCKS_MESSAGE = 50;
const MAX_BLOCKS_MODAL = 100;
const MAX_BLOCKS_HOME = 100;
export const MAX_SECTION_TEXT = 3000;
const MAX_FIELDS = 10;
const MAX_FIELD_TEXT = 2000;
const MAX_BUTTON_TEXT = 75;
export const MAX_VALUE = 2000;
const MAX_ACTION_ID = 255;
const MAX_BLOCK_ID = 255;
const MAX_MODAL_TITLE = 24;
const MAX_MODAL_BUTTON = 24;
const MAX_HEADER = 150;
const MAX_CONTEXT_ELEMENTS = 10;
const MAX_ACTIONS_ELEMENTS = 25;
const MAX_OPTION_TEXT = 75;
const MAX_OPTION_VALUE = 150;
export const MAX_OPTIONS = 100;
const MAX_OPTION_GROUPS = 100;
/** The top-level fallback `text` we send (Slack allows more; notifications show far less). */
export const MAX_TEXT = 3000;
const MAX_INPUT_LABEL = 2000;
const MAX_HINT = 2000;
const MAX_PLACEHOLDER = 150;
const MAX_INITIAL_VALUE = 3000;
const MAX_URL = 3000;
const MAX_ALT_TEXT = 2000;
const MAX_CALLBACK_ID = 255;

export const KEEP_BLOCK_PREFIX = 'keep:';

/**
 * Texts joined by `separator` into as few section texts as fit `room` characters each (a text is never split;
 * one longer than `room` stands alone and fitMessage cuts it). The one packer for help, pages and cards.
 */
export function packSections(texts: readonly string[], separator = '\n', room = MAX_SECTION_TEXT): string[] {
  const out: string[] = [];
  let current = '';
  for (const text of texts) {
    if (current && current.length + separator.length + text.length > room) {
      out.push(current);
      current = '';
    }
    current = current ? `${current}${separator}${text}` : text;
  }
  if (current) out.push(current);
  return out;
}

type Obj = Record<string, unknown>;

/**
 * Shortens `text` to at most `max` UTF-16 units (Slack counts characters; units are never fewer), ending with
 * `marker`. The cut never splits a surrogate pair, never leaves half an escape entity (`&am`) and never half a
 * `<…>` link or mention: it moves back before them, so the kept text still renders as it would have.
 */
export function truncate(text: string, max: number, marker = '…'): string {
  if (text.length <= max) return text;
  if (max <= 0) return '';
  if (marker.length >= max) return safeCut(marker, max, marker);
  return safeCut(text, max - marker.length, text) + marker;
}

function safeCut(text: string, n: number, whole: string): string {
  let end = n;
  const high = text.charCodeAt(end - 1);
  if (high >= 0xd800 && high <= 0xdbff) end--;
  let kept = text.slice(0, end);
  // Half an entity: `&amp;` cut to `&am`. Only when the original really continues into an entity.
  const amp = /&[#A-Za-z0-9]{0,10}$/.exec(kept);
  if (amp && /^&[#A-Za-z0-9]+;/.test(whole.slice(amp.index))) kept = kept.slice(0, amp.index);
  // Half a link or mention: a `<` whose `>` lies beyond the cut.
  const open = kept.lastIndexOf('<');
  if (open >= 0 && kept.indexOf('>', open) < 0 && whole.indexOf('>', open) >= 0) kept = kept.slice(0, open);
  return kept;
}

/** Returns a copy of the message that satisfies every limit above; the input is not changed. */
export function fitMessage(message: SlackMessage): SlackMessage {
  return {
    text: truncate(message.text, MAX_TEXT),
    blocks: capBlocks(message.blocks, MAX_BLOCKS_MESSAGE).map(fitBlock),
  };
}

/** Returns a copy of the modal that satisfies every limit above. `private_metadata` is the caller's to keep
 * under 3,000 characters: cutting it would corrupt what the submission handler reads back. */
export function fitModal(view: ModalView): ModalView {
  const out: ModalView = {
    ...view,
    title: { ...view.title, text: truncate(view.title.text, MAX_MODAL_TITLE) },
    blocks: capBlocks(view.blocks as KnownBlock[], MAX_BLOCKS_MODAL).map(fitBlock),
  };
  if (view.submit) out.submit = { ...view.submit, text: truncate(view.submit.text, MAX_MODAL_BUTTON) };
  if (view.close) out.close = { ...view.close, text: truncate(view.close.text, MAX_MODAL_BUTTON) };
  if (typeof view.callback_id === 'string') out.callback_id = truncate(view.callback_id, MAX_CALLBACK_ID, '');
  return out;
}

/** Returns a copy of the Home tab that satisfies every limit above (100 blocks, as a modal). */
export function fitHome(view: HomeView): HomeView {
  return { ...view, blocks: capBlocks(view.blocks as KnownBlock[], MAX_BLOCKS_HOME).map(fitBlock) };
}

function isMustKeep(block: KnownBlock, index: number, all: readonly KnownBlock[]): boolean {
  if (typeof block.block_id === 'string' && block.block_id.startsWith(KEEP_BLOCK_PREFIX)) return true;
  return index === all.length - 1 && block.type === 'actions';
}

/** Keeps at most `max` blocks: must-keep ones, then the earliest others, and one "…and N more" note. */
function capBlocks(blocks: readonly KnownBlock[], max: number): KnownBlock[] {
  if (blocks.length <= max) return [...blocks];
  const keep = new Set<number>();
  blocks.forEach((b, i) => {
    if (isMustKeep(b, i, blocks) && keep.size < max - 1) keep.add(i);
  });
  let budget = max - 1 - keep.size;
  let lastShown = -1;
  for (let i = 0; i < blocks.length && budget > 0; i++) {
    if (keep.has(i)) continue;
    keep.add(i);
    lastShown = i;
    budget--;
  }
  const omitted = blocks.length - keep.size;
  const note: KnownBlock = {
    type: 'context',
    elements: [{ type: 'mrkdwn', text: `…and ${omitted.toLocaleString('en-US')} more not shown` }],
  };
  const out: KnownBlock[] = [];
  let noted = false;
  blocks.forEach((b, i) => {
    if (!keep.has(i)) return;
    out.push(b);
    if (i === lastShown) {
      out.push(note);
      noted = true;
    }
  });
  if (!noted) out.push(note);
  return out;
}

function fitBlock(block: KnownBlock): KnownBlock {
  const b = structuredClone(block) as unknown as Obj;
  if (typeof b.block_id === 'string') b.block_id = truncate(b.block_id, MAX_BLOCK_ID, '');
  switch (b.type) {
    case 'section':
      fitTextObject(b, 'text', MAX_SECTION_TEXT);
      if (Array.isArray(b.fields)) b.fields = fitFields(b.fields as Obj[]);
      if (isObj(b.accessory)) b.accessory = fitElement(b.accessory);
      break;
    case 'header':
      fitTextObject(b, 'text', MAX_HEADER);
      break;
    case 'context':
      if (Array.isArray(b.elements)) {
        b.elements = (b.elements as Obj[]).slice(0, MAX_CONTEXT_ELEMENTS).map((e) => fitElement(e));
      }
      break;
    case 'actions':
      if (Array.isArray(b.elements)) {
        b.elements = (b.elements as Obj[]).slice(0, MAX_ACTIONS_ELEMENTS).map((e) => fitElement(e));
      }
      break;
    case 'input':
      fitTextObject(b, 'label', MAX_INPUT_LABEL);
      fitTextObject(b, 'hint', MAX_HINT);
      if (isObj(b.element)) b.element = fitElement(b.element);
      break;
    case 'image':
      if (typeof b.alt_text === 'string') b.alt_text = truncate(b.alt_text, MAX_ALT_TEXT);
      fitTextObject(b, 'title', MAX_ALT_TEXT);
      break;
    default:
      // Unknown or rarely used blocks: text objects anywhere inside still get the section limit.
      return fitElement(b) as unknown as KnownBlock;
  }
  return b as unknown as KnownBlock;
}

/** More than ten fields: nine are kept and the tenth says how many were left out. */
function fitFields(fields: Obj[]): Obj[] {
  let kept = fields;
  if (fields.length > MAX_FIELDS) {
    const omitted = fields.length - (MAX_FIELDS - 1);
    kept = [...fields.slice(0, MAX_FIELDS - 1), { type: 'mrkdwn', text: `…and ${omitted} more` }];
  }
  return kept.map((f) => ({ ...f, text: truncate(String(f.text ?? ''), MAX_FIELD_TEXT) }));
}

function fitTextObject(o: Obj, key: string, max: number): void {
  const t = o[key];
  if (isObj(t) && typeof t.text === 'string') o[key] = { ...t, text: truncate(t.text, max) };
}

const CONFIRM_LIMITS = { title: 100, text: 300, confirm: 30, deny: 30 } as const;
const OPTION_COUNT: Record<string, number> = { overflow: 5, radio_buttons: 10, checkboxes: 10 };

/** Block elements and composition objects: buttons, selects, inputs, text objects, and anything else. */
function fitElement(input: Obj): Obj {
  const el: Obj = { ...input };
  const type = el.type;
  if ((type === 'plain_text' || type === 'mrkdwn') && typeof el.text === 'string') {
    el.text = truncate(el.text, MAX_SECTION_TEXT);
    return el;
  }
  if (typeof el.action_id === 'string') el.action_id = truncate(el.action_id, MAX_ACTION_ID, '');
  if (typeof el.value === 'string') el.value = truncate(el.value, MAX_VALUE, '');
  if (typeof el.url === 'string') el.url = truncate(el.url, MAX_URL, '');
  if (typeof el.alt_text === 'string') el.alt_text = truncate(el.alt_text, MAX_ALT_TEXT);
  if (typeof el.initial_value === 'string') el.initial_value = truncate(el.initial_value, MAX_INITIAL_VALUE);
  if (typeof el.max_length === 'number') el.max_length = Math.min(el.max_length, MAX_INITIAL_VALUE);
  fitTextObject(el, 'text', type === 'button' ? MAX_BUTTON_TEXT : MAX_SECTION_TEXT);
  fitTextObject(el, 'placeholder', MAX_PLACEHOLDER);
  if (isObj(el.confirm)) {
    const c: Obj = { ...el.confirm };
    for (const [key, max] of Object.entries(CONFIRM_LIMITS)) fitTextObject(c, key, max);
    el.confirm = c;
  }
  const maxOptions = OPTION_COUNT[String(type)] ?? MAX_OPTIONS;
  if (Array.isArray(el.options)) el.options = (el.options as Obj[]).slice(0, maxOptions).map(fitOption);
  if (Array.isArray(el.option_groups)) {
    el.option_groups = (el.option_groups as Obj[]).slice(0, MAX_OPTION_GROUPS).map((g) => {
      const group: Obj = { ...g };
      fitTextObject(group, 'label', MAX_OPTION_TEXT);
      if (Array.isArray(group.options))
        group.options = (group.options as Obj[]).slice(0, MAX_OPTIONS).map(fitOption);
      return group;
    });
  }
  fitInitialOptions(el);
  // Elements this file does not know (rich text, new Slack types): cap any nested text object generically.
  for (const [key, v] of Object.entries(el)) {
    if (key === 'confirm' || key === 'options' || key === 'option_groups') continue;
    if (Array.isArray(v)) el[key] = v.map((x) => (isObj(x) ? fitElement(x) : x));
    else if (isObj(v) && key !== 'text' && key !== 'placeholder') el[key] = fitElement(v);
  }
  return el;
}

function fitOption(o: Obj): Obj {
  const opt: Obj = { ...o };
  fitTextObject(opt, 'text', MAX_OPTION_TEXT);
  fitTextObject(opt, 'description', MAX_OPTION_TEXT);
  if (typeof opt.value === 'string') opt.value = truncate(opt.value, MAX_OPTION_VALUE, '');
  if (typeof opt.url === 'string') opt.url = truncate(opt.url, MAX_URL, '');
  return opt;
}

/** Slack rejects an initial option that is not among the options: those cut off are dropped. */
function fitInitialOptions(el: Obj): void {
  const listed = [
    ...(Array.isArray(el.options) ? (el.options as Obj[]) : []),
    ...(Array.isArray(el.option_groups)
      ? (el.option_groups as Obj[]).flatMap((g) => (g.options as Obj[]) ?? [])
      : []),
  ];
  if (listed.length === 0) return;
  const values = new Set(listed.map((o) => o.value));
  if (isObj(el.initial_option)) {
    const opt = fitOption(el.initial_option);
    if (values.has(opt.value)) el.initial_option = opt;
    else delete el.initial_option;
  }
  if (Array.isArray(el.initial_options)) {
    el.initial_options = (el.initial_options as Obj[]).map(fitOption).filter((o) => values.has(o.value));
  }
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
