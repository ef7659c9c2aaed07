import type { DiscoveredAction, Discovery } from '../gateway/index.js';
import { SPEC_ACTIONS } from '../gateway/index.js';
import { type ActionField, discoveredField, humanize } from './fields.js';
import { guardedNames } from './guarded.js';
import { KNOWN_ACTIONS, type KnownAction, type ModalPolicy } from './known-actions.js';
import { PRESENTATION, type ResultSpec } from './result-specs.js';

/**
 * The action catalogue: one entry per gateway action, and the single source commands, modals, jobs, result
 * rendering and help are driven from.
 *
 * The discovery call is the source of truth (docs/gateway-api.md §4.1, §9):
 * - an action discovery lists that the bot does not know gets an entry from its `required_fields` (free text),
 *   reachable as `/gateway run <action> field=value …`;
 * - a known action that discovery lists with an extra required field gains that field (text, required);
 * - a known action discovery does NOT list stays in the catalogue with `available: false`, so the command
 *   says "this gateway does not offer it" instead of "no such command". Without a discovery answer (gateway
 *   down) every known entry counts as available: the POST will tell.
 */

export type { ActionField } from './fields.js';

export interface ActionEntry {
  action: string;
  /** Command words after `/gateway`: `audit`, `backlinks refresh`, `run generate_faq`. */
  command: string;
  label: string;
  description: string;
  fields: ActionField[];
  positional: string[];
  restPositional?: boolean;
  modal: ModalPolicy;
  /** Optional fields worth a form: absent from the command line, they open the modal (prefilled). */
  offerFields?: string[];
  guarded: boolean;
  recordResource?: string;
  safeToRepeat: boolean;
  sameFields: string[];
  /** How its title and result read (result-specs.ts); unset for actions only discovery knows. */
  title?: string[];
  result?: ResultSpec;
  discovered: boolean;
  /** False when a discovery answer was given and does not list the action. */
  available: boolean;
  /** With the `/gateway ` prefix. */
  usage: string;
  example: string;
}

export interface Catalogue {
  entries(): ActionEntry[];
  /** `audit`, `backlinks refresh`, `run <action>` (any action by its gateway name). Case-insensitive. */
  byCommand(cmd: string): ActionEntry | undefined;
  byAction(action: string): ActionEntry | undefined;
}

export interface CatalogueOptions {
  /** Added to the actions that are always guarded (deploy_blog, send_prospect_email); any case. */
  guardedActions: readonly string[];
}

export function buildCatalogue(discovery: Discovery | undefined, options: CatalogueOptions): Catalogue {
  // The always-guarded actions are added here too, so no caller can build a catalogue that runs a deploy unasked.
  const guarded = new Set(guardedNames(options.guardedActions));
  const listed = new Map((discovery?.actions ?? []).map((a) => [a.action, a] as const));
  const known = new Set(KNOWN_ACTIONS.map((k) => k.action));

  const entries: ActionEntry[] = KNOWN_ACTIONS.map((k) =>
    knownEntry(k, listed.get(k.action), discovery !== undefined, guarded.has(k.action.toLowerCase())),
  );
  const unknown = [...listed.values()]
    .filter((a) => !known.has(a.action) && /^[a-z][a-z0-9_]*$/i.test(a.action))
    .sort((a, b) => a.action.localeCompare(b.action));
  for (const a of unknown) entries.push(discoveredEntry(a, guarded.has(a.action.toLowerCase())));

  const byCommand = new Map(entries.map((e) => [e.command.toLowerCase(), e] as const));
  const byAction = new Map(entries.map((e) => [e.action.toLowerCase(), e] as const));
  return {
    entries: () => [...entries],
    byAction: (action) => byAction.get(action.trim().toLowerCase()),
    byCommand: (cmd) => {
      const words = cmd.trim().toLowerCase().split(/\s+/);
      if (words[0] === 'run' && words.length === 2) return byAction.get(words[1] ?? '');
      return byCommand.get(words.join(' '));
    },
  };
}

function knownEntry(
  k: KnownAction,
  listed: DiscoveredAction | undefined,
  haveDiscovery: boolean,
  guarded: boolean,
): ActionEntry {
  const spec = SPEC_ACTIONS.find((s) => s.action === k.action);
  const required = new Set(listed?.required_fields ?? []);
  const fields = k.fields.map((f) => (required.has(f.name) && !f.required ? { ...f, required: true } : f));
  for (const name of required) {
    if (!fields.some((f) => f.name === name)) fields.push(discoveredField(name));
  }
  const entry: ActionEntry = {
    action: k.action,
    command: k.command,
    label: k.label,
    description: listed?.description || spec?.description || humanize(k.action),
    fields,
    positional: [...k.positional],
    modal: k.modal,
    guarded,
    safeToRepeat: spec?.safeToRepeat ?? false,
    sameFields: [...k.sameFields],
    discovered: false,
    available: !haveDiscovery || listed !== undefined,
    usage: k.usage ?? usageLine(k.command, fields, k.positional, k.restPositional ?? false),
    example: k.example,
  };
  if (k.restPositional) entry.restPositional = true;
  if (k.offerFields) entry.offerFields = [...k.offerFields];
  if (spec?.recordResource) entry.recordResource = spec.recordResource;
  const shown = PRESENTATION[k.action];
  if (shown) {
    entry.title = [...shown.title];
    entry.result = shown.result;
  }
  return entry;
}

/**
 * An action only discovery knows: text fields from `required_fields`. Its sameness is all its required fields
 * (the bot cannot tell a generation from a refresh, so it errs on the side of not spending credits twice);
 * where its record lands is unknown, so only the ledger of our own jobs can spot a repeat.
 */
function discoveredEntry(a: DiscoveredAction, guarded: boolean): ActionEntry {
  const fields = [...new Set(a.required_fields)].map(discoveredField);
  const command = `run ${a.action}`;
  const example = fields.length
    ? `/gateway ${command} ${fields.map((f) => `${f.name}="…"`).join(' ')}`
    : `/gateway ${command}`;
  return {
    action: a.action,
    command,
    label: discoveredLabel(a.action),
    description: a.description || humanize(a.action),
    fields,
    positional: [],
    modal: 'always-offer',
    guarded,
    safeToRepeat: false,
    sameFields: fields.map((f) => f.name),
    discovered: true,
    available: true,
    usage: usageLine(command, fields, [], false),
    example,
  };
}

/** `/gateway llm <brand_name> <prompt…> [competitors=…]`: positionals in order, then name=value fields. */
function usageLine(
  command: string,
  fields: readonly ActionField[],
  positional: readonly string[],
  rest: boolean,
) {
  const parts = [`/gateway ${command}`];
  positional.forEach((name, i) => {
    const f = fields.find((x) => x.name === name);
    const shown = rest && i === positional.length - 1 ? `${name}…` : name;
    parts.push(f?.required ? `<${shown}>` : `[${shown}]`);
  });
  for (const f of fields) {
    if (positional.includes(f.name)) continue;
    parts.push(f.required ? `${f.name}=…` : `[${f.name}=…]`);
  }
  return parts.join(' ');
}

/** The words after a leading verb, as a noun: `generate_faq` → "FAQ", `run_site_crawl` → "Site crawl". */
const VERBS = new Set(['generate', 'create', 'run', 'make', 'build', 'fetch', 'get', 'do', 'start']);
function discoveredLabel(action: string): string {
  const words = action.split('_').filter(Boolean);
  const rest = words.length > 1 && VERBS.has(words[0]?.toLowerCase() ?? '') ? words.slice(1) : words;
  return shortLabel(humanize(rest.join('_')));
}

function shortLabel(label: string): string {
  return label.length <= 24 ? label : `${label.slice(0, 23)}…`;
}
