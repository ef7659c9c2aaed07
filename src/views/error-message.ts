/**
 * The ephemeral message for anything that went wrong: what happened, the detail (often the gateway's own
 * words, so escaped), what to do, and the usage. Never a stack trace: lines that look like one are dropped.
 */

import type { SlackMessage } from './blocks.js';
import { context, type KnownBlock, section } from './blocks.js';
import { code, escapeMrkdwn } from './escape.js';
import { fitMessage, truncate } from './limits.js';

const MAX_DETAIL = 1500;

export interface ErrorMessageInput {
  title: string;
  detail?: string;
  hint?: string;
  usage?: string;
}

export function buildErrorMessage(input: ErrorMessageInput): SlackMessage {
  const title = escapeMrkdwn(oneLine(input.title));
  const blocks: KnownBlock[] = [section(`:warning: *${title}*`)];
  const detail = input.detail === undefined ? '' : withoutStack(input.detail);
  if (detail) blocks.push(section(escapeMrkdwn(truncate(detail, MAX_DETAIL))));
  if (input.hint) blocks.push(section(`*What to do:* ${escapeMrkdwn(input.hint)}`));
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
