/**
 * Escaping of text that goes into Slack mrkdwn. Slack gives `&`, `<` and `>` control meaning only: `<!channel>`
 * pings a channel, `<@U1>` mentions, `<https://x|label>` is a link. Escaping those three (Slack's own rule) makes
 * any gateway string inert, so data can never ping, mention or forge a link. Apply it to every gateway string,
 * the top-level `text` fallback included (notifications render it as mrkdwn too).
 */

/**
 * Bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069): a name or review carrying
 * them can reverse or reorder what is shown after it (`invoice\u202Efdp.exe`), so gateway text never keeps them.
 */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;

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
