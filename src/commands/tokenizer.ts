import type { Token } from '../actions/index.js';
/**
 * `/gateway …` text → tokens. Words split on whitespace; quotes group words; `name=value` is a pair.
 *
 * - Quotes: "…", '…' and the smart quotes phones and Macs type (“…”, ‘…’) open only at the start of a token or
 *   of a pair's value (`keyword=“best plumber”`), so apostrophes inside words (`Joe's`) stay literal. A single
 *   quote closes only before whitespace or the end (`'Joe's pizza'` → `Joe's pizza`). An unclosed quote is a
 *   TokenizeError with code `unterminated_quote` that says where.
 * - Slack rewrites some input before we see it, so its forms are unwrapped: a link `<https://a.example|a.example>`
 *   or `<https://a.example>` → `https://a.example`; `<mailto:a@b.c|a@b.c>` → `a@b.c`; a user mention
 *   `<@U123|ana>` → `<@U123>` and a channel `<#C123|seo>` → `<#C123>`, a user group `<!subteam^S1|@x>` →
 *   `<!subteam^S1>` (the canonical forms: the id is what matters, labels go stale; `parseMention` reads them);
 *   `<!here>`/`<!channel>`/`<!everyone>` → the plain words `@here`/`@channel`/`@everyone`.
 * - Slack sends a typed `&`, `<`, `>` as `&amp;`, `&lt;`, `&gt;`; they are decoded (a decoded `<` is plain text).
 * Text that came from an unwrapped form, an entity or quotes never turns a token into a pair.
 */

export class TokenizeError extends Error {
  override name = 'TokenizeError';
  constructor(
    readonly code: 'unterminated_quote',
    message: string,
    /** 0-based index of the opening quote in the text as received. */
    readonly position: number,
  ) {
    super(message);
  }
}

const PAIR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const DOUBLE_QUOTES = '"“”„';
const SINGLE_QUOTES = "'‘’";
const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>' };

export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let buf = '';
  let started = false;
  let plainOnly = true; // buf holds only characters typed outside quotes, links and entities
  let pairName: string | undefined;

  const emit = () => {
    if (started)
      tokens.push(
        pairName === undefined ? { kind: 'word', value: buf } : { kind: 'pair', name: pairName, value: buf },
      );
    buf = '';
    started = false;
    plainOnly = true;
    pairName = undefined;
  };

  let i = 0;
  while (i < text.length) {
    const ch = text[i] as string;
    if (/\s/.test(ch)) {
      emit();
      i++;
      continue;
    }
    const atom = readAtom(text, i);
    if (atom) {
      buf += atom.text;
      started = true;
      plainOnly = false;
      i = atom.next;
      continue;
    }
    const atValueStart = !started || (pairName !== undefined && buf === '');
    if (atValueStart && (DOUBLE_QUOTES.includes(ch) || SINGLE_QUOTES.includes(ch))) {
      const quoted = readQuoted(text, i);
      buf += quoted.text;
      started = true;
      plainOnly = false;
      i = quoted.next;
      continue;
    }
    if (ch === '=' && pairName === undefined && plainOnly && PAIR_NAME.test(buf)) {
      pairName = buf;
      buf = '';
      i++;
      continue;
    }
    buf += ch;
    started = true;
    i++;
  }
  emit();
  return tokens;
}

/** A quoted run starting at `start` (the quote), with Slack forms and entities inside decoded. */
function readQuoted(text: string, start: number): { text: string; next: number } {
  const single = SINGLE_QUOTES.includes(text[start] as string);
  const closers = single ? SINGLE_QUOTES : DOUBLE_QUOTES;
  let out = '';
  let i = start + 1;
  while (i < text.length) {
    const ch = text[i] as string;
    const atEnd = i + 1 >= text.length || /\s/.test(text[i + 1] as string);
    if (closers.includes(ch) && (!single || atEnd)) return { text: out, next: i + 1 };
    const atom = readAtom(text, i);
    if (atom) {
      out += atom.text;
      i = atom.next;
    } else {
      out += ch;
      i++;
    }
  }
  const near = decodeEntities(text.slice(start, start + 24));
  throw new TokenizeError(
    'unterminated_quote',
    `The quote ${text[start]} at character ${start + 1} is never closed (near ${near}${text.length > start + 24 ? '…' : ''}).`,
    start,
  );
}

/** An entity or a Slack `<…>` form at `i`, decoded; undefined when the text there is an ordinary character. */
function readAtom(text: string, i: number): { text: string; next: number } | undefined {
  const ch = text[i];
  if (ch === '&') {
    for (const [entity, decoded] of Object.entries(ENTITIES)) {
      if (text.startsWith(entity, i)) return { text: decoded, next: i + entity.length };
    }
    return undefined;
  }
  if (ch !== '<') return undefined;
  const close = text.indexOf('>', i + 1);
  if (close < 0) return undefined;
  const inner = text.slice(i + 1, close);
  if (!/^(?:[@#!]|[A-Za-z][A-Za-z0-9+.-]*:)/.test(inner) || inner.includes('<')) return undefined;
  return { text: unwrapSlackForm(inner), next: close + 1 };
}

function unwrapSlackForm(inner: string): string {
  const bar = inner.indexOf('|');
  const target = bar < 0 ? inner : inner.slice(0, bar);
  const label = bar < 0 ? undefined : inner.slice(bar + 1);
  if (target.startsWith('@') || target.startsWith('#')) return `<${target}>`;
  if (target.startsWith('!')) {
    if (target.startsWith('!subteam^')) return `<${target}>`;
    if (['!here', '!channel', '!everyone'].includes(target)) return `@${target.slice(1)}`;
    return decodeEntities(label ?? target.slice(1)); // e.g. <!date^…|fallback>
  }
  if (/^mailto:/i.test(target)) return decodeEntities(target.slice('mailto:'.length));
  return decodeEntities(target);
}

function decodeEntities(s: string): string {
  return s.replace(/&(amp|lt|gt);/g, (m) => ENTITIES[m] ?? m);
}

/** Reads a canonical mention token (`<@U1>`, `<#C1>`, `<!subteam^S1>`) back into its id. */
export function parseMention(
  value: string,
): { kind: 'user' | 'channel' | 'usergroup'; id: string } | undefined {
  const m = /^<(@|#|!subteam\^)([A-Z0-9]+)>$/.exec(value);
  if (!m) return undefined;
  const kind = m[1] === '@' ? 'user' : m[1] === '#' ? 'channel' : 'usergroup';
  return { kind, id: m[2] as string };
}

/** The first word, lower-cased, is the command; everything after it are its arguments. */
export function splitCommand(text: string): { command: string | undefined; args: Token[] } {
  const tokens = tokenize(text);
  const first = tokens[0];
  if (first?.kind === 'word' && first.value !== '') {
    return { command: first.value.toLowerCase(), args: tokens.slice(1) };
  }
  return { command: undefined, args: tokens };
}
