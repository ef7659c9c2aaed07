import { tokenize } from '../commands/tokenizer.js';
import { mrkdwnToText, type RenderNames, renderBlocks } from './console-render.js';
import type { FakeView } from './fake-slack/index.js';
import type { InputValues } from './view-state.js';

/**
 * A modal as console prompts: its input fields (label, required or optional, select options as numbered
 * choices, initial value, the error Slack shows under it), and the `fill name=value …` line of script mode.
 * Pure: the console does the asking and the submitting.
 */

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

interface ModalOption {
  label: string;
  value: string;
}

export interface ModalField {
  blockId: string;
  actionId: string;
  label: string;
  optional: boolean;
  type: string;
  multiline: boolean;
  options: ModalOption[];
  initial?: string;
  placeholder?: string;
  hint?: string;
  error?: string;
}

const textOf = (t: unknown) => (isObj(t) && typeof t.text === 'string' ? t.text : undefined);

function optionsOf(el: Obj): ModalOption[] {
  const groups = Array.isArray(el.option_groups) ? el.option_groups.filter(isObj) : [];
  const all = [
    ...(Array.isArray(el.options) ? el.options : []),
    ...groups.flatMap((g) => g.options as unknown[]),
  ];
  return all.filter(isObj).map((o) => ({ label: textOf(o.text) ?? String(o.value), value: String(o.value) }));
}

function initialOf(el: Obj): string | undefined {
  if (typeof el.initial_value === 'string') return el.initial_value;
  if (isObj(el.initial_option)) return String(el.initial_option.value);
  for (const k of [
    'initial_user',
    'initial_conversation',
    'initial_channel',
    'initial_date',
    'initial_time',
  ]) {
    if (typeof el[k] === 'string') return el[k] as string;
  }
  return undefined;
}

export function modalFields(view: FakeView): ModalField[] {
  const blocks: unknown[] = Array.isArray(view.view?.blocks) ? view.view.blocks : [];
  return blocks.filter(isObj).flatMap((b): ModalField[] => {
    if (b.type !== 'input' || !isObj(b.element)) return [];
    const el = b.element;
    const blockId = String(b.block_id);
    const field: ModalField = {
      blockId,
      actionId: String(el.action_id),
      label: textOf(b.label) ?? blockId,
      optional: Boolean(b.optional),
      type: String(el.type),
      multiline: Boolean(el.multiline),
      options: optionsOf(el),
    };
    const initial = initialOf(el);
    if (initial !== undefined) field.initial = initial;
    const placeholder = textOf(el.placeholder);
    if (placeholder) field.placeholder = placeholder;
    const hint = textOf(b.hint);
    if (hint) field.hint = hint;
    const error = view.errors?.[blockId];
    if (error) field.error = error;
    return [field];
  });
}

/** A select's options: on one line when they fit a terminal's, else one option a line (a form of 25 posts). */
function optionLines(options: readonly ModalOption[]): string[] {
  const numbered = options.map((o, i) => `${i + 1}) ${o.label}`);
  const oneLine = numbered.join('  ');
  if (!numbered.length) return [];
  return oneLine.length <= 100 ? [`│     ${oneLine}`] : numbered.map((o) => `│     ${o}`);
}

/** The modal's title and non-input content (the intro), then its fields: what a person sees before typing. */
export function describeModal(view: FakeView, names?: RenderNames): string[] {
  const title = textOf(view.view?.title) ?? 'Modal';
  const submit = textOf(view.view?.submit);
  const blocks: unknown[] = Array.isArray(view.view?.blocks) ? view.view.blocks : [];
  const intro = renderBlocks(
    blocks.filter((b) => !isObj(b) || b.type !== 'input'),
    names ? { names } : {},
  ).lines;
  const lines = [`┌ modal “${title}”${submit ? ` [${submit}]` : ''}`, ...intro.map((l) => `│ ${l}`)];
  for (const f of modalFields(view)) {
    lines.push(`│ • ${fieldHeading(f)}`);
    lines.push(...optionLines(f.options));
    if (f.error) lines.push(`│     ✗ ${mrkdwnToText(f.error, names)}`);
  }
  lines.push('└');
  return lines;
}

/** `Keyword (keyword, required; e.g. best plumber austin) [now: x]`. */
function fieldHeading(f: ModalField): string {
  const notes = [f.actionId, f.optional ? 'optional' : 'required'];
  if (f.placeholder && !f.options.length) notes.push(`e.g. ${f.placeholder}`);
  if (f.hint) notes.push(f.hint);
  const now = f.initial ? ` [now: ${f.initial}]` : '';
  return `${f.label} (${notes.join('; ')})${now}`;
}

/**
 * What a person typed at a field's prompt: a choice number or an option's value or label picks that option
 * (undefined when it names none); for other fields the text is the value.
 */
export function answerFor(f: ModalField, typed: string): string | undefined {
  const text = typed.trim();
  if (!f.options.length || f.type.includes('external')) return text;
  if (/^\d+$/.test(text)) return f.options[Number(text) - 1]?.value;
  const lower = text.toLowerCase();
  return f.options.find((o) => o.value === text || o.label.toLowerCase() === lower)?.value;
}

/** `fill keyword="best plumber austin" city=Austin` → input values keyed by action_id. */
export function parseFill(text: string, what = 'fill'): InputValues {
  // `\"` is a quote inside a quoted value: set aside before the bot's tokenizer (which has no escapes) reads it.
  const QUOTE = '\u0000';
  const values: InputValues = {};
  for (const token of tokenize(text.replace(/\\"/g, QUOTE))) {
    const restore = (v: string) => v.split(QUOTE).join('"');
    if (token.kind !== 'pair')
      throw new Error(`${what} takes name=value pairs; “${restore(token.value)}” is not one`);
    values[token.name] = restore(token.value);
  }
  return values;
}
