/**
 * The ephemeral message for anything that went wrong: what happened, the detail (often the gateway's own
 * words, so escaped), what to do, and the usage. Never a stack trace: lines that look like one are dropped.
 */

import type { SlackMessage } from './blocks.js';
import { context, type KnownBlock, section } from './blocks.js';
import { code, escapeMrkdwn } from './escape.js';
import { fitMessage, truncate } from './limits.js';

const MAX_DETAIL = 1500;
/** Only ids that look like Slack's become mentions; anything else could forge markup. */
const SLACK_USER_ID = /^[UW][A-Z0-9]{2,20}$/;
const MAX_PEOPLE = 10;

export interface ErrorMessageInput {
  title: string;
  detail?: string;
  hint?: string;
  usage?: string;
  /** Slack user ids of the people who can help, mentioned after the hint. */
  people?: readonly string[];
}

export function buildErrorMessage(input: ErrorMessageInput): SlackMessage {
  const title = escapeMrkdwn(oneLine(input.title));
  const blocks: KnownBlock[] = [section(`:warning: *${title}*`)];
  const detail = input.detail === undefined ? '' : withoutStack(input.detail);
  if (detail) blocks.push(section(escapeMrkdwn(truncate(detail, MAX_DETAIL))));
  const people = (input.people ?? []).filter((id) => SLACK_USER_ID.test(id)).slice(0, MAX_PEOPLE);
  const mentions = people.map((id) => `<@${id}>`).join(', ');
  if (input.hint)
    blocks.push(section(`*What to do:* ${escapeMrkdwn(input.hint)}${mentions ? ` ${mentions}` : ''}`));
  if (input.usage) blocks.push(context(`Usage: ${code(input.usage)}`));
  return fitMessage({ text: `:warning: ${title}`, blocks });
}

/** Drops `    at fn (file:1:2)` frames and `Error: …` headers that only a stack would carry. */
function withoutStack(text: string): string {
  return text
    .split('\n')
    .filter((line) => !/^\s*at\s+\S/.test(line) || !/(\(|\s)\S+:\d+:\d+\)?\s*$/.test(line))
    .join('\n')
    .trim();
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/** The words a command took no notice of, said after its answer so nothing typed is dropped unsaid. */
export function buildIgnoredWords(
  command: string,
  words: ReadonlyArray<{ kind: 'word'; value: string } | { kind: 'pair'; name: string; value: string }>,
  /** The words it does take (`jobs`: `all`); none: it takes nothing after its name. */
  takes: readonly string[] = [],
  /** A word it takes that one of the ignored ones looks like a typo of (`al` → `all`). */
  meant?: string,
): SlackMessage {
  const typed = words.map((w) => code(w.kind === 'word' ? w.value : `${w.name}=${w.value}`)).join(' ');
  const what = takes.length ? `only ${takes.map((t) => code(t)).join(' or ')}` : 'nothing';
  const guess = meant ? ` Did you mean ${code(`/gateway ${command} ${meant}`)}?` : '';
  const text = `:information_source: ${code(`/gateway ${command}`)} takes ${what} after its name, so I ignored ${truncate(typed, 1_000)}.${guess}`;
  return fitMessage({ text, blocks: [section(text)] });
}
