/**
 * Escaping of text that goes into Slack mrkdwn. Slack gives `&`, `<` and `>` control meaning only: `<!channel>`
 * pings a channel, `<@U1>` mentions, `<https://x|label>` is a link. Escaping those three (Slack's own rule) makes
 * any gateway string inert, so data can never ping, mention or forge a link. Apply it to every gateway string,
 * the top-level `text` fallback included (notifications render it as mrkdwn too).
 */

/**
 * Bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069) and the direction marks
 * (U+200E, U+200F, the Arabic letter mark U+061C): a name or review carrying them can reverse or reorder what is
 * shown after it (`invoice\u202Efdp.exe`), or which side a neutral character sits on, so gateway text never
 * keeps them.
 */
const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

/** Gateway text without bidirectional controls: for plain_text (labels, options, buttons) that is not mrkdwn. */
export function stripBidi(text: string): string {
  return text.replace(BIDI_CONTROLS, '');
}

/**
 * `&` → `&amp;`, `<` → `&lt;`, `>` → `&gt;`, bidirectional controls removed. Idempotence is not a goal:
 * escape once, where data enters mrkdwn.
 */
export function escapeMrkdwn(text: string): string {
  return stripBidi(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * A link `<url|label>` only for http(s) URLs; anything else (javascript:, slack:, mailto:, junk) becomes plain
 * escaped text, so a row can never smuggle a link of another scheme. `|` and `>` would end the URL part early
 * and let the rest act as a forged label, so they are removed from the URL; `<` and `&` are escaped as Slack
 * expects inside links. The label is escaped text; an empty label falls back to the URL.
 */
export function mrkdwnLink(url: string, label?: string): string {
  const trimmed = url.trim();
  const shownLabel = label === undefined || label.trim() === '' ? trimmed : label;
  if (!/^https?:\/\/[^\s]+$/i.test(trimmed)) return escapeMrkdwn(shownLabel);
  const safeUrl = stripBidi(trimmed).replace(/[|>]/g, '').replace(/&/g, '&amp;').replace(/</g, '&lt;');
  // A `|` in the label is harmless: the label only ends at `>`, which escapeMrkdwn turns into `&gt;`.
  return `<${safeUrl}|${escapeMrkdwn(shownLabel)}>`;
}

/**
 * Inline code that cannot be broken out of: backticks would close it and newlines end it, so both are removed;
 * the content is escaped like any other mrkdwn, so `code(gatewayString)` is safe without a separate escape.
 */
export function code(text: string): string {
  const inner = text.replace(/`/g, '').replace(/[\r\n]+/g, ' ');
  return `\`${escapeMrkdwn(inner === '' ? ' ' : inner)}\``;
}

/** Every kind of line break, a CRLF as one. */
const LINE_BREAK = /\r\n|[\n\r\v\f\u0085\u2028\u2029]/g;

/**
 * Mrkdwn that must stay on its line (a title, a line of a card): each line break of `text` is shown as ` ↵ `, so a
 * value that holds one can neither pass for a line of the message nor hide that it had one. Apply after escaping.
 */
export function oneLine(text: string): string {
  return text.replace(LINE_BREAK, ' ↵ ');
}

/**
 * Multi-line mrkdwn (a body, a transcript) set apart from the message's own lines: every one of its lines is
 * quoted (`>`), so none of them can pass for a line of the card. Escaped text cannot end the quote early (a
 * typed `>` is `&gt;`). Apply after escaping.
 */
export function quoted(text: string): string {
  return text
    .split(LINE_BREAK)
    .map((line) => `>${line}`)
    .join('\n');
}

/** Text for HTML (a draft's body put into an email's html, a web page): `& < > " '` as entities. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
