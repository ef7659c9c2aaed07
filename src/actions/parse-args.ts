import type { ActionEntry } from './catalogue.js';
import type { Token } from './token.js';

/**
 * Command-line words → action fields. Positional words fill `entry.positional` in order (the last takes the
 * rest when `restPositional`), `name=value` pairs name any field; every value is checked with the field's
 * zod schema and comes out as the gateway is sent it (trimmed, numbers coerced, lists split).
 *
 * Missing required fields open the modal, whatever the action (`audit` alone opens it as `press` does); only
 * values that are wrong are refused, with the usage line. `--form` (or `form` as the only word) asks for the
 * modal where the action offers one. Coordinates pasted from a map (`30.2672, -97.7431`) fill lat and lng.
 */

export type ParseResult =
  | { kind: 'ready'; fields: Record<string, unknown> }
  | { kind: 'needs-modal'; prefill: Record<string, string>; reason: 'missing' | 'asked' }
  | { kind: 'invalid'; errors: Record<string, string>; usage: string };

export type ValidationResult =
  | { ok: true; fields: Record<string, unknown> }
  | { ok: false; errors: Record<string, string> };

/** The key of an error about the words of the command line as a whole, not one field. */
export const ARGUMENTS_ERROR_KEY = 'arguments';

export function parseActionArgs(entry: ActionEntry, tokens: readonly Token[]): ParseResult {
  const errors: Record<string, string> = {};
  const raw: Record<string, string> = {};
  const words: string[] = [];
  let asked = false;
  const wordCount = tokens.filter((t) => t.kind === 'word').length;

  const coordinates = entry.fields.some((f) => f.kind === 'latitude');
  for (const token of tokens) {
    if (token.kind === 'word') {
      if (entry.modal !== 'never' && isFormFlag(token.value, wordCount)) asked = true;
      else if (coordinates) words.push(...pastedCoordinates(token.value));
      else words.push(token.value);
      continue;
    }
    const f = entry.fields.find((x) => x.name.toLowerCase() === token.name.toLowerCase());
    if (!f) errors[token.name] = unknownFieldMessage(entry, token.name);
    else if (f.name in raw) errors[f.name] = `${f.name} is given twice`;
    else raw[f.name] = token.value;
  }

  // Positional words fill the slots a name=value pair did not already fill.
  const slots = entry.positional.filter((name) => !(name in raw));
  let lastFilled: string | undefined;
  slots.forEach((name, i) => {
    const last = i === slots.length - 1;
    const taken = last && entry.restPositional ? words.splice(0) : words.splice(0, 1);
    if (taken.length > 0) {
      raw[name] = taken.join(' ');
      lastFilled = name;
    }
  });
  const urlField = entry.fields.find((f) => f.name === lastFilled && f.kind === 'url');
  if (words.length > 0 && urlField) {
    // `audit https://acme.example/my page`: the words after a URL are most likely the rest of it.
    errors[urlField.name] =
      `${urlField.label} cannot contain spaces ("${raw[urlField.name]} ${words.join(' ')}"): write a space as %20`;
  } else if (words.length > 0) {
    const byPair = entry.positional.filter((name) => !slots.includes(name));
    errors[ARGUMENTS_ERROR_KEY] = strayWordsMessage(entry, words, byPair, raw);
  }
  if (Object.keys(errors).length > 0) return { kind: 'invalid', errors, usage: entry.usage };

  const present = Object.fromEntries(Object.entries(raw).filter(([, v]) => v.trim() !== ''));
  if (asked) return { kind: 'needs-modal', prefill: present, reason: 'asked' };

  const checked = validateActionFields(entry, present);
  if (checked.ok) {
    const offered = (entry.offerFields ?? []).some((name) => !(name in present));
    if (offered && entry.modal !== 'never') return { kind: 'needs-modal', prefill: present, reason: 'asked' };
    return { kind: 'ready', fields: checked.fields };
  }
  const missingOnly = Object.keys(checked.errors).every((name) => isMissing(entry, name, present));
  if (missingOnly) return { kind: 'needs-modal', prefill: present, reason: 'missing' };
  return { kind: 'invalid', errors: checked.errors, usage: entry.usage };
}

/**
 * Checks raw values (command line, modal, job data) against the entry's fields: unknown names, missing
 * required fields, and each value's schema. Empty values count as absent. Output keeps the entry's field
 * order and only the fields given.
 */
export function validateActionFields(entry: ActionEntry, raw: Record<string, unknown>): ValidationResult {
  const errors: Record<string, string> = {};
  const fields: Record<string, unknown> = {};
  for (const name of Object.keys(raw)) {
    if (!entry.fields.some((f) => f.name === name)) errors[name] = unknownFieldMessage(entry, name);
  }
  for (const f of entry.fields) {
    const text = asText(raw[f.name]);
    if (text === undefined) {
      errors[f.name] = `${f.label} must be text`;
      continue;
    }
    if (text.trim() === '') {
      if (f.required) errors[f.name] = `${f.label} is required`;
      continue;
    }
    const parsed = f.schema.safeParse(text);
    if (parsed.success) fields[f.name] = parsed.data;
    else errors[f.name] = parsed.error.issues[0]?.message ?? `${f.label} is not valid`;
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, fields };
}

/**
 * A word of coordinates as a map copies them: `30.2672,` `-97.7431`, `30.2672,-97.7431`, `(30.2672,`. Words
 * that are not numbers are left alone.
 */
function pastedCoordinates(word: string): string[] {
  const bare = word.trim().replace(/^\(|\)$/g, '');
  const pair = /^(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)$/.exec(bare);
  if (pair?.[1] && pair[2]) return [pair[1], pair[2]];
  const one = /^(-?\d+(?:\.\d+)?),?$/.exec(bare);
  if (one?.[1]) return [one[1]];
  return [word];
}

/** `--form` anywhere; a bare `form` only as the sole word, so a prompt like "what form of payment" stays whole. */
function isFormFlag(word: string, wordCount: number): boolean {
  const lower = word.toLowerCase();
  return lower === '--form' || (lower === 'form' && wordCount === 1);
}

/** Absent → ''. Numbers and lists (job data that was validated before) go back to text. Else undefined. */
function asText(value: unknown): string | undefined {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.join('\n');
  return undefined;
}

function isMissing(entry: ActionEntry, name: string, present: Record<string, string>): boolean {
  return entry.fields.some((f) => f.name === name && f.required) && !(name in present);
}

function unknownFieldMessage(entry: ActionEntry, name: string): string {
  const names = entry.fields.map((f) => f.name);
  if (names.length === 0) return `Unknown field "${name}": \`${entry.command}\` takes no fields`;
  return `Unknown field "${name}": \`${entry.command}\` takes ${names.join(', ')}`;
}

const NUMBER_KINDS: ReadonlySet<string> = new Set(['number', 'latitude', 'longitude']);
const TEXT_KINDS: ReadonlySet<string> = new Set(['text', 'multiline', 'html', 'list']);

function strayWordsMessage(
  entry: ActionEntry,
  words: string[],
  givenAsPairs: string[],
  raw: Record<string, string>,
): string {
  const shown = words.map((w) => `"${w}"`).join(' ');
  if (givenAsPairs.length > 0) {
    return `Unexpected ${shown}: ${givenAsPairs.join(', ')} already given as name=value`;
  }
  if (entry.positional.length === 0 && entry.fields.length > 0) {
    return `Unexpected ${shown}: give fields as name=value, quoting values with spaces (name="two words")`;
  }
  if (entry.fields.length === 0) return `Unexpected ${shown}: \`${entry.command}\` takes no arguments`;
  // An id (`post_id`) is one word, whatever its field's kind: a second one is a second request, not a space.
  const kinds = entry.positional.map((name) =>
    name.endsWith('_id') ? 'id' : (entry.fields.find((f) => f.name === name)?.kind ?? 'text'),
  );
  // A comma splits words: `30,2672 -97,7431` is four numbers to the bot, so decimal commas show up as whole
  // numbers in every number field and stray digits after them.
  const numbers = entry.positional.filter((name, i) => NUMBER_KINDS.has(kinds[i] ?? '') && name in raw);
  const decimalCommas =
    numbers.length > 0 &&
    numbers.every((name) => /^-?\d+$/.test(raw[name] ?? '')) &&
    words.every((w) => /^-?\d+$/.test(w));
  if (decimalCommas) {
    return `Too many words: ${shown}. Write decimals with a point, like 30.2672 (a comma separates values)`;
  }
  if (!kinds.some((k) => TEXT_KINDS.has(k))) {
    const takes = entry.positional.map((name) => `<${name}>`).join(' ');
    return `Too many words: ${shown}. \`${entry.command}\` takes ${takes}: one request each`;
  }
  return `Too many words: ${shown}. Quote values with spaces ("best plumber austin")`;
}
