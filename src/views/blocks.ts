/**
 * Tiny Block Kit builders. They do NOT escape mrkdwn (plain text only loses bidirectional controls): a caller passes gateway data through `escapeMrkdwn` (or `code`,
 * `mrkdwnLink`) itself, so every place where data enters mrkdwn is visible at the call site. Nor do they
 * enforce limits: the finished message goes through `fitMessage`/`fitModal` (limits.ts), once.
 */
import type { types } from '@slack/bolt';
import { stripBidi } from './escape.js';

export type KnownBlock = types.KnownBlock;
export type Button = types.Button;
export type SectionBlock = types.SectionBlock;
type MrkdwnElement = types.MrkdwnElement;
export type PlainTextElement = types.PlainTextElement;

/** What every view builds and every surface sends: the fallback text (also mrkdwn) and the blocks. */
export interface SlackMessage {
  text: string;
  blocks: KnownBlock[];
}

/** Plain text shows `<!channel>` literally, so it needs no escaping; bidirectional controls are still removed. */
export function plain(text: string): PlainTextElement {
  return { type: 'plain_text', text: stripBidi(text), emoji: true };
}

function mrkdwn(text: string): MrkdwnElement {
  return { type: 'mrkdwn', text };
}

export function section(text: string, accessory?: types.SectionBlockAccessory): SectionBlock {
  return accessory
    ? { type: 'section', text: mrkdwn(text), accessory }
    : { type: 'section', text: mrkdwn(text) };
}

/** A message of one line of mrkdwn (escaped by the caller): its text and a section that shows it. */
export function lineMessage(text: string): SlackMessage {
  return { text, blocks: [section(text)] };
}

/** A section of two-column fields (mrkdwn); Slack shows at most ten. */
export function fields(...texts: string[]): SectionBlock {
  return { type: 'section', fields: texts.map(mrkdwn) };
}

export function context(...texts: string[]): types.ContextBlock {
  return { type: 'context', elements: texts.map(mrkdwn) };
}

export function header(text: string): types.HeaderBlock {
  return { type: 'header', text: plain(text) };
}

export function divider(): types.DividerBlock {
  return { type: 'divider' };
}

/** An actions block; a `block_id` starting with `keep:` survives `fitMessage`'s block cut. */
export function actions(blockId: string, ...buttons: Button[]): types.ActionsBlock {
  return { type: 'actions', block_id: blockId, elements: buttons };
}

export function button(opts: {
  text: string;
  actionId: string;
  value?: string;
  style?: 'primary' | 'danger';
  url?: string;
}): Button {
  const b: Button = { type: 'button', text: plain(opts.text), action_id: opts.actionId };
  if (opts.value !== undefined) b.value = opts.value;
  if (opts.style) b.style = opts.style;
  if (opts.url) b.url = opts.url;
  return b;
}
