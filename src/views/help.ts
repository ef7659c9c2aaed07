/**
 * `/gateway help`: one line per command with an example, grouped; and one command's detail. Entries may come
 * from the discovery call (new actions), so every entry string is escaped like gateway data.
 */

import type { SlackMessage } from './blocks.js';
import { context, header, type KnownBlock, section } from './blocks.js';
import { code, escapeMrkdwn } from './escape.js';
import { fitMessage, packSections } from './limits.js';

const HELP_GROUPS = ['Setup', 'Read', 'Actions', 'Jobs & approvals', 'Digests'] as const;
type HelpGroup = (typeof HELP_GROUPS)[number];

export interface HelpEntry {
  name: string;
  /** Without the `/gateway ` prefix, e.g. `get <resource> [limit=N]`. */
  usage: string;
  summary: string;
  /** Shown as typed; `/gateway ` is prepended when it does not start with `/`. */
  example: string;
  adminOnly?: boolean;
  group: HelpGroup;
}

/** What one command's help adds below its usage: e.g. the resources `get` reads, the actions `run` runs. */
export interface HelpDetail {
  label: string;
  /** Names shown as code, in order; cut (and said so) to keep the section under Slack's limits. */
  names: readonly string[];
}

/** At most this many names a detail line: the section stays far under Slack's 3,000 characters. */
const DETAIL_NAMES = 60;

export function buildHelp(commands: readonly HelpEntry[], opts: { isAdmin: boolean }): SlackMessage {
  const blocks: KnownBlock[] = [header('Gateway bot commands')];
  for (const group of HELP_GROUPS) {
    const lines = commands.filter((c) => c.group === group).map((c) => helpLine(c, opts.isAdmin));
    if (lines.length === 0) continue;
    for (const chunk of packSections([`*${group}*`, ...lines])) blocks.push(section(chunk));
  }
  blocks.push(context(`Details of one command: ${code('/gateway help <command>')}`));
  return fitMessage({ text: 'Gateway bot commands: /gateway help &lt;command&gt; for details', blocks });
}

export function buildCommandHelp(entry: HelpEntry, details: readonly HelpDetail[] = []): SlackMessage {
  const lines = [
    `*${code(entry.name)}* — ${escapeMrkdwn(entry.summary)}${entry.adminOnly ? ' _(admins only)_' : ''}`,
    `Usage: ${code(`/gateway ${entry.usage}`)}`,
    `Example: ${code(exampleText(entry.example))}`,
  ];
  for (const d of details) {
    if (d.names.length === 0) continue;
    const shown = d.names.slice(0, DETAIL_NAMES).map((n) => code(n));
    const more = d.names.length > DETAIL_NAMES ? ` …and ${d.names.length - DETAIL_NAMES} more` : '';
    lines.push(`${escapeMrkdwn(d.label)}: ${shown.join(', ')}${more}`);
  }
  return fitMessage({
    text: escapeMrkdwn(`/gateway ${entry.usage}: ${entry.summary}`),
    blocks: [section(lines.join('\n')), context(`Group: ${escapeMrkdwn(entry.group)}`)],
  });
}

function helpLine(c: HelpEntry, isAdmin: boolean): string {
  const admins = c.adminOnly && !isAdmin ? ' _(admins)_' : '';
  return `${code(`/gateway ${c.usage}`)} — ${escapeMrkdwn(c.summary)}${admins} · e.g. ${code(exampleText(c.example))}`;
}

function exampleText(example: string): string {
  return example.startsWith('/') ? example : `/gateway ${example}`;
}
