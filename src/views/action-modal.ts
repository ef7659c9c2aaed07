/**
 * The modal of an action, generated from its catalogue entry: one input block per field (block_id and
 * action_id are the field's name, so `response_action: errors` can point at the field), a select where the
 * field takes its options from a resource and they were loaded, free text otherwise. Pure: the listener loads
 * the options, opens the loading view and validates the submission.
 */
import type { types } from '@slack/bolt';
import type { ActionEntry, ActionField } from '../actions/catalogue.js';
import { MULTILINE_KINDS, type OptionsSource } from '../actions/fields.js';
import type { Row } from '../gateway/types.js';
import { context, plain, section } from './blocks.js';
import { escapeMrkdwn } from './escape.js';
import { fitModal, MAX_OPTIONS, truncate } from './limits.js';

type ModalView = types.ModalView;
type KnownBlock = types.KnownBlock;

export const ACTION_MODAL_CALLBACK_ID = 'action_modal';
/** Slack's limit; cutting it would corrupt what the submission reads back, so a longer one is refused. */
const MAX_PRIVATE_METADATA = 3000;

interface SelectOption {
  label: string;
  value: string;
}

export interface ActionModalOptions {
  /** Raw text per field, e.g. what the command line gave. */
  prefill?: Record<string, string>;
  /** Loaded options of select fields, by field name. A select with none falls back to a text input. */
  options?: Record<string, SelectOption[]>;
  /** What a select offers when it is not every row (`The 25 newest of 240 posts…`), by field name: its hint. */
  notes?: Record<string, string>;
  privateMetadata: string;
  loading?: false;
}

export function buildActionModal(entry: ActionEntry, opts: ActionModalOptions): ModalView {
  if (opts.privateMetadata.length > MAX_PRIVATE_METADATA) {
    throw new RangeError(
      `action_modal_metadata_too_long: private_metadata is ${opts.privateMetadata.length} characters (Slack allows ${MAX_PRIVATE_METADATA})`,
    );
  }
  const blocks: KnownBlock[] = [context(intro(entry))];
  for (const f of entry.fields)
    blocks.push(inputBlock(f, opts.prefill?.[f.name], opts.options?.[f.name], opts.notes?.[f.name]));
  if (entry.fields.length === 0)
    blocks.push(section('This action takes no fields: press *Run* to start it.'));
  return fitModal({
    type: 'modal',
    callback_id: ACTION_MODAL_CALLBACK_ID,
    title: plain(truncate(entry.label, 24)),
    submit: plain(entry.guarded ? 'Request approval' : 'Run'),
    close: plain('Cancel'),
    private_metadata: opts.privateMetadata,
    blocks,
  });
}

/** Shown the moment the command arrives (a trigger_id dies after 3 s); `views.update` fills it in. */
export function buildLoadingModal(title: string): ModalView {
  return fitModal({
    type: 'modal',
    title: plain(truncate(title, 24)),
    close: plain('Cancel'),
    blocks: [section('Loading…')],
  });
}

type StateValue = { type?: string; value?: string | null; selected_option?: { value?: string } | null };

/** `view.state.values` → raw field values (absent or empty inputs are left out), ready for validation. */
export function readActionModal(
  entry: ActionEntry,
  stateValues: Record<string, Record<string, StateValue | undefined> | undefined>,
): Record<string, unknown> {
  const raw: Record<string, unknown> = {};
  for (const f of entry.fields) {
    const state = stateValues[f.name]?.[f.name];
    const value = state?.selected_option?.value ?? state?.value;
    if (typeof value === 'string' && value.trim() !== '') raw[f.name] = value;
  }
  return raw;
}

function intro(entry: ActionEntry): string {
  const approval = entry.guarded ? ' An approver must accept it before it runs.' : '';
  return `${escapeMrkdwn(entry.description)} (\`${escapeMrkdwn(entry.action)}\`).${approval}`;
}

function inputBlock(
  f: ActionField,
  prefill: string | undefined,
  options: SelectOption[] | undefined,
  note: string | undefined,
): KnownBlock {
  const block: types.InputBlock = {
    type: 'input',
    block_id: f.name,
    label: plain(f.label),
    optional: !f.required,
    element: options && options.length > 0 ? selectElement(f, options, prefill) : textElement(f, prefill),
  };
  const fallback = f.kind === 'select' && !options?.length ? (f.find ?? `The ${f.name} to use.`) : undefined;
  const hint = note ?? f.hint ?? fallback;
  if (hint) block.hint = plain(hint);
  return block;
}

function textElement(f: ActionField, prefill: string | undefined): types.PlainTextInput {
  const el: types.PlainTextInput = { type: 'plain_text_input', action_id: f.name };
  if (MULTILINE_KINDS.has(f.kind)) el.multiline = true;
  if (prefill) el.initial_value = prefill;
  if (f.placeholder) el.placeholder = plain(f.placeholder);
  return el;
}

function selectElement(
  f: ActionField,
  options: SelectOption[],
  prefill: string | undefined,
): types.StaticSelect {
  const shown = options
    .slice(0, MAX_OPTIONS)
    .map((o) => ({ text: plain(o.label || o.value), value: o.value }));
  const el: types.StaticSelect = {
    type: 'static_select',
    action_id: f.name,
    placeholder: plain(f.placeholder ?? `Choose a ${f.label.toLowerCase()}`),
    options: shown,
  };
  const initial = shown.find((o) => o.value === prefill);
  if (initial) el.initial_option = initial;
  return el;
}

/** How many of the newest rows a select offers: enough to find a recent post, short enough to scan by eye. */
export const NEWEST_CHOICES = 25;
const MAX_OPTION_LABEL = 75;

/**
 * A select of the newest rows (`optionsFrom.newest`): the rows read, newest first, at most NEWEST_CHOICES of
 * them, each labelled with its title, details and id; and the note that says what was left out and how to give
 * another (`usage`, the command line that names one).
 */
export function newestChoices(
  from: OptionsSource,
  field: Pick<ActionField, 'name' | 'find'>,
  usage: string,
  collected: { rows: readonly Row[]; total: number; truncated: boolean },
): { options: SelectOption[]; note: string } {
  const by = from.newest ?? '';
  const dated = collected.rows.filter((r) => r[from.valueField] !== undefined && r[from.valueField] !== null);
  const sorted = [...dated].sort((a, b) => String(b[by] ?? '').localeCompare(String(a[by] ?? '')));
  const options = sorted.slice(0, NEWEST_CHOICES).map((row) => ({
    value: String(row[from.valueField]),
    label: choiceLabel(row, from),
  }));
  const noun = from.resource === 'blogs' ? 'posts' : 'rows';
  const read = collected.rows.length;
  const of = collected.truncated
    ? `of the first ${read.toLocaleString('en-US')} ${noun} the gateway sent (it has ${collected.total.toLocaleString('en-US')})`
    : `of ${read.toLocaleString('en-US')} ${noun}`;
  const shown =
    options.length === 0
      ? `This client has no ${noun} yet.`
      : options.length < read || collected.truncated
        ? `The ${options.length} newest ${of}, newest first.`
        : `All ${options.length} ${noun}, newest first.`;
  const find = field.find ? ` ${field.find}` : '';
  const another = options.length ? ` Another: ${usage}.${find}` : find;
  return { options, note: `${shown}${another}` };
}

/** `How to choose a water heater (draft · 2026-11-20 · blog_000123)`: the title cut so the id always shows. */
function choiceLabel(row: Row, from: OptionsSource): string {
  const date = (v: unknown) => (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(v) ? v.slice(0, 10) : v);
  const details = [...(from.detail ?? []).map((name) => date(row[name])), row[from.valueField]]
    .filter((v) => v !== undefined && v !== null && v !== '')
    .map(String);
  const tail = ` (${details.join(' · ')})`;
  const title = String(row[from.labelField] ?? '')
    .replace(/\s+/g, ' ')
    .trim();
  if (!title) return truncate(details.join(' · '), MAX_OPTION_LABEL);
  return truncate(title, Math.max(10, MAX_OPTION_LABEL - tail.length)) + tail;
}
