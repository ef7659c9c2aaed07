import { Parser } from 'htmlparser2';

/**
 * What an email's html does, for the approver who decides whether it is sent: its whole text (each link's
 * target written next to its text), every link, and every resource a mail client may fetch when the email is
 * opened (images and tracking pixels, frames, forms, stylesheets, scripts, media, CSS `url()`s). Read with
 * htmlparser2, the way a browser tokenizes it (unquoted attributes, entities, odd case), not with patterns a
 * crafted email could slip past. Pure: nothing is fetched.
 */

export interface EmailLink {
  /** The link's text as shown ('' for an image-only link). */
  text: string;
  href: string;
}

type ResourceKind =
  | 'image'
  | 'frame'
  | 'form'
  | 'stylesheet'
  | 'script'
  | 'media'
  | 'object'
  | 'refresh'
  | 'css';

export interface EmailResource {
  kind: ResourceKind;
  url: string;
  /** An image of at most 1×1 pixels or hidden: what tracking pixels look like. */
  pixel?: boolean;
}

export interface EmailContent {
  text: string;
  links: EmailLink[];
  resources: EmailResource[];
  /** The html was longer than is read (MAX_HTML): what follows the cut is not in the text or the lists. */
  htmlCut?: number;
}

/**
 * The most html read. Forms cap an email's html far below this; the cap keeps a pathological record (deeply
 * nested tags cost the parser more than linear time) from stalling a card's every update.
 */
const MAX_HTML = 200_000;

/** Elements whose text is not shown. */
const HIDDEN_TEXT = new Set(['script', 'style', 'head', 'title', 'template', 'noscript']);
/** Elements that start a new line of text. */
const BLOCK = new Set([
  'br',
  'p',
  'div',
  'li',
  'tr',
  'table',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'blockquote',
  'section',
  'article',
  'header',
  'footer',
  'ul',
  'ol',
  'hr',
  'pre',
  'center',
]);

/** Attributes that make a mail client fetch something, by element (`*`: any element). */
const FETCHED: Record<string, Array<[attribute: string, kind: ResourceKind]>> = {
  img: [
    ['src', 'image'],
    ['srcset', 'image'],
    ['lowsrc', 'image'],
    ['dynsrc', 'image'],
  ],
  image: [
    ['href', 'image'],
    ['xlink:href', 'image'],
  ],
  input: [
    ['src', 'image'],
    ['formaction', 'form'],
  ],
  button: [['formaction', 'form']],
  iframe: [['src', 'frame']],
  frame: [['src', 'frame']],
  form: [['action', 'form']],
  script: [['src', 'script']],
  embed: [['src', 'object']],
  object: [['data', 'object']],
  applet: [['code', 'object']],
  video: [
    ['src', 'media'],
    ['poster', 'image'],
  ],
  audio: [['src', 'media']],
  source: [
    ['src', 'media'],
    ['srcset', 'image'],
  ],
  track: [['src', 'media']],
  '*': [['background', 'image']],
};

/** `url(...)` and `@import "..."` in CSS. */
const CSS_URL = /url\(\s*(['"]?)(.*?)\1\s*\)|@import\s+(['"])(.*?)\3/gi;

function cssUrls(css: string): string[] {
  const out: string[] = [];
  for (const m of css.matchAll(CSS_URL)) {
    const url = (m[2] ?? m[4] ?? '').trim();
    if (url) out.push(url);
  }
  return out;
}

/** `a.png 1x, b.png 2x` → both addresses. */
function srcsetUrls(value: string): string[] {
  return value
    .split(',')
    .map((part) => part.trim().split(/\s+/)[0] ?? '')
    .filter(Boolean);
}

/** Data and `cid:` (attached) addresses load nothing from the web. */
const loadsNothing = (url: string) => /^(data|cid):/i.test(url.trim()) || url.trim() === '';

function isPixel(attribs: Record<string, string>): boolean {
  const size = (v: string | undefined) => (v === undefined ? undefined : Number.parseFloat(v));
  const width = size(attribs.width);
  const height = size(attribs.height);
  const style = (attribs.style ?? '').toLowerCase().replace(/\s+/g, '');
  const tiny = (n: number | undefined) => n !== undefined && !Number.isNaN(n) && n <= 1;
  return (
    (tiny(width) && tiny(height)) ||
    /display:none|visibility:hidden|opacity:0(?![.\d])/.test(style) ||
    /(^|;)(width|height):[01](px)?(;|$)/.test(style)
  );
}

/** Everything an opening tag makes a mail client fetch, handed to `found` in the order the tag names them. */
function fetchedBy(
  name: string,
  attribs: Record<string, string>,
  found: (kind: ResourceKind, url: string, pixel?: boolean) => void,
): void {
  for (const [attribute, kind] of [...(FETCHED[name] ?? []), ...(FETCHED['*'] ?? [])]) {
    const value = attribs[attribute];
    if (value === undefined) continue;
    const urls = attribute === 'srcset' ? srcsetUrls(value) : [value];
    for (const url of urls) found(kind, url, kind === 'image' && name === 'img' && isPixel(attribs));
  }
  if (name === 'link' && attribs.href) found('stylesheet', attribs.href);
  if (name === 'meta' && /refresh/i.test(attribs['http-equiv'] ?? '')) {
    const url = /url\s*=\s*['"]?([^'";]+)/i.exec(attribs.content ?? '')?.[1];
    if (url) found('refresh', url);
  }
  if (attribs.style) for (const url of cssUrls(attribs.style)) found('css', url);
}

/** Folds runs of spaces within lines and of blank lines between them. */
function fold(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(/[ \t\f\v\r\u00a0]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

export function analyseEmail(html: string): EmailContent {
  const links: EmailLink[] = [];
  const resources: EmailResource[] = [];
  let text = '';
  let hidden = 0;
  let inStyle = 0;
  let css = '';
  const openLinks: Array<{ href: string; start: number }> = [];
  const resource = (kind: ResourceKind, url: string, pixel = false) => {
    if (loadsNothing(url)) return;
    resources.push({ kind, url: url.trim(), ...(pixel ? { pixel: true } : {}) });
  };

  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (HIDDEN_TEXT.has(name)) hidden++;
        if (name === 'style') inStyle++;
        if (BLOCK.has(name)) text += '\n';
        fetchedBy(name, attribs, resource);
        if (name === 'a' && attribs.href !== undefined)
          openLinks.push({ href: attribs.href.trim(), start: text.length });
        // An image's alt text stands for it in the text (and in an image-only link's text).
        if (name === 'img' && attribs.alt && !hidden) text += ` ${attribs.alt} `;
      },
      ontext(data) {
        if (inStyle) css += data;
        if (!hidden) text += data;
      },
      onclosetag(name) {
        if (HIDDEN_TEXT.has(name)) hidden = Math.max(0, hidden - 1);
        if (name === 'style') inStyle = Math.max(0, inStyle - 1);
        if (BLOCK.has(name)) text += '\n';
        if (name === 'a') {
          const open = openLinks.pop();
          if (!open) return;
          const shown = fold(text.slice(open.start)).replace(/\n/g, ' ');
          links.push({ text: shown, href: open.href });
          // The target goes into the text beside what the reader sees, so the text hides no address.
          text += ` [${open.href}]`;
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html.length > MAX_HTML ? html.slice(0, MAX_HTML) : html);
  parser.end();
  for (const url of cssUrls(css)) resource('css', url);
  const cut = html.length > MAX_HTML ? { htmlCut: html.length - MAX_HTML } : {};
  return { text: fold(text), links, resources, ...cut };
}
