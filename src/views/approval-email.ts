import { context, type KnownBlock, type SlackMessage, section } from './blocks.js';
import type { EmailContent, EmailLink, EmailResource } from './email-content.js';
import { code, escapeMrkdwn, oneLine } from './escape.js';
import { fitMessage, MAX_BLOCKS_MESSAGE, MAX_SECTION_TEXT, packSections } from './limits.js';

/**
 * What an email approval shows of the email before anyone approves it: on the card, its links (each target
 * beside its text) and everything it loads when opened; in the card's thread, the same in full and the whole
 * text, paged over as many messages as it takes (up to a limit that is said when reached). Addresses are
 * shown as inert code, never as links: looking at a tracking address must not fetch it. Pure.
 */

/** Room in a section, with a margin for a list's "…and N more" line. */
const ROOM = MAX_SECTION_TEXT - 200;
/** Raw characters of text per piece: escaped (`&` → `&amp;`, at most 5×) it still fits a section. */
const RAW_PIECE = 500;
/** Blocks per thread message, under Slack's 50. */
const PAGE_BLOCKS = MAX_BLOCKS_MESSAGE - 5;
/** Thread messages at most: about 170 sections of text. */
const MAX_PAGES = 4;
/** Links or resources listed on the card itself; the thread lists them all. */
const CARD_ITEMS = 8;

const RESOURCE_WORDS: Record<EmailResource['kind'], string> = {
  image: 'image',
  frame: 'frame (a web page inside the email)',
  form: 'form, sends what is typed to',
  stylesheet: 'stylesheet',
  script: 'script',
  media: 'video or sound',
  object: 'embedded object',
  refresh: 'redirect when opened, to',
  css: 'image or font from the email’s styles',
};

const hostOf = (url: string) => /^[a-z][a-z0-9+.-]*:\/\/([^/?#\s]+)/i.exec(url.trim())?.[1]?.toLowerCase();

/** The host a link's text reads as: `https://a.example/x` or a bare `a.example/x`; none for other text. */
function shownHost(text: string): string | undefined {
  const t = text.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(t)) return hostOf(t);
  return /^([\w-]+(?:\.[\w-]+)*\.[a-z]{2,})(?:[/:?#]|$)/i.exec(t)?.[1]?.toLowerCase();
}

function linkLine(link: EmailLink): string {
  const shown = link.text.trim() ? `“${escapeMrkdwn(link.text.trim())}”` : '_(an image or no text)_';
  // A text that reads as an address of another host is the classic disguise: say so.
  const seen = shownHost(link.text);
  const target = hostOf(link.href);
  const disguised =
    seen && target && seen !== target
      ? ' :warning: _the text shows another address than the link goes to_'
      : '';
  return `• ${shown} → ${code(link.href)}${disguised}`;
}

function resourceLine(resource: EmailResource): string {
  const pixel = resource.pixel ? ' :warning: _1×1 or hidden: a tracking pixel_' : '';
  return `• ${RESOURCE_WORDS[resource.kind]} ${code(resource.url)}${pixel}`;
}

/** A list for the card: the first few, then how many more and where they are. */
function cardList(title: string, lines: readonly string[]): string {
  const shown = lines.slice(0, CARD_ITEMS);
  let body = '';
  let count = 0;
  for (const line of shown) {
    if (body.length + line.length + 1 > ROOM) break;
    body += `\n${line}`;
    count++;
  }
  const rest = lines.length - count;
  return `*${title}*${body}${rest > 0 ? `\n…and ${rest} more in this card’s thread` : ''}`;
}

/** The card's part: the cut note, the links and the resources (or that there are none). */
export function emailCardBlocks(content: EmailContent, preview: string): KnownBlock[] {
  const blocks: KnownBlock[] = [];
  // The card's preview (payload.ts) ends with … exactly when it was cut.
  const cut = preview.endsWith('…');
  const notes = [
    cut
      ? `:scissors: *The preview above is cut*: it shows only the start of ${content.text.length.toLocaleString('en-US')} characters of text.`
      : 'The preview above is the whole text.',
    'The whole email, every link’s target and everything it loads are in this card’s thread.',
  ];
  if (content.htmlCut)
    notes.push(':warning: The html is too long to read whole: the lists below may be incomplete.');
  blocks.push(context(notes.join(' ')));
  blocks.push(
    section(
      content.links.length
        ? cardList(`Links (${content.links.length})`, content.links.map(linkLine))
        : '*Links:* none',
    ),
  );
  blocks.push(
    section(
      content.resources.length
        ? cardList(
            `Loads from the web when opened (${content.resources.length})`,
            content.resources.map(resourceLine),
          )
        : '*Loads from the web when opened:* nothing',
    ),
  );
  return blocks;
}

/** The text cut into raw pieces that, escaped, fit a section; a cut never splits a surrogate pair. */
function pieces(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    let rest = line;
    while (rest.length > RAW_PIECE) {
      let at = RAW_PIECE;
      const code = rest.charCodeAt(at);
      if (code >= 0xdc00 && code <= 0xdfff) at--;
      out.push(rest.slice(0, at));
      rest = rest.slice(at);
    }
    out.push(rest);
  }
  return out;
}

/**
 * The thread's messages: to, subject, every link and resource, then the whole text. Past MAX_PAGES messages
 * the rest of the text is not shown, and the last message says how much was left out.
 */
export function buildEmailDetail(input: {
  approvalId: string;
  to: string;
  subject: string;
  content: EmailContent;
}): SlackMessage[] {
  const { content } = input;
  const blocks: KnownBlock[] = [
    section(
      `*The whole email of approval ${code(input.approvalId)}*, exactly as it will be sent\n*To:* ${oneLine(escapeMrkdwn(input.to))}\n*Subject:* ${oneLine(escapeMrkdwn(input.subject))}`,
    ),
    ...listSections('Links', content.links.map(linkLine), '*Links:* none'),
    ...listSections(
      'Loads from the web when opened',
      content.resources.map(resourceLine),
      '*Loads from the web when opened:* nothing',
    ),
  ];
  blocks.push(...textBlocks(content, MAX_PAGES * PAGE_BLOCKS - blocks.length - 2));
  return paged(input.approvalId, blocks);
}

/** A whole list in as many sections as it takes, its count in its title; `none` when it is empty. */
function listSections(title: string, lines: readonly string[], none: string): KnownBlock[] {
  const packed = packSections(lines, '\n', ROOM);
  if (!packed.length) return [section(none)];
  return packed.map((s, i) => section(i === 0 ? `*${title} (${lines.length})*\n${s}` : s));
}

/**
 * The text under its title, in at most `budget` sections; then what was not read (the html past its limit)
 * and what is not shown (the text past the budget).
 */
function textBlocks(content: EmailContent, budget: number): KnownBlock[] {
  // Quoted, line by line: no line of the email can pass for one of the bot's own.
  const textSections = packSections(
    pieces(content.text).map((p) => `>${escapeMrkdwn(p)}`),
    '\n',
    ROOM,
  );
  const shown = textSections.slice(0, Math.max(0, budget));
  const blocks: KnownBlock[] = [
    section(`*Text (${content.text.length.toLocaleString('en-US')} characters)*`),
    ...shown.map((s) => section(s)),
  ];
  if (content.htmlCut) {
    blocks.push(
      context(
        `:scissors: *Only the first 200,000 characters of the html were read*: ${content.htmlCut.toLocaleString('en-US')} more may hold more text, links and remote resources than listed here. The email is sent whole, exactly as asked for.`,
      ),
    );
  }
  if (shown.length < textSections.length) {
    const left = textSections
      .slice(shown.length)
      .reduce((n, s) => n + s.length, 0)
      .toLocaleString('en-US');
    blocks.push(
      context(
        `:scissors: *The text is cut here*: about ${left} more characters are not shown in Slack. The email is sent whole, exactly as asked for.`,
      ),
    );
  }
  return blocks;
}

/** The blocks paged over thread messages, each named for the approval (and its part). */
function paged(approvalId: string, blocks: KnownBlock[]): SlackMessage[] {
  const messages: SlackMessage[] = [];
  for (let i = 0; i < blocks.length; i += PAGE_BLOCKS) {
    const page = messages.length + 1;
    messages.push(
      fitMessage({
        text: `The whole email of approval ${approvalId}${page > 1 ? `, part ${page}` : ''}`,
        blocks: blocks.slice(i, i + PAGE_BLOCKS),
      }),
    );
  }
  return messages;
}
