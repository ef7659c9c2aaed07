/**
 * Block Kit and mrkdwn as terminal text, for the demo console. Pure: no I/O, so the transcript a person sees
 * is unit-tested. Slack's control sequences (`<@U1>`, `<url|label>`, `<!here>`) become readable words, the
 * three escaped characters come back, and buttons get numbers a person can type.
 */

export interface RenderNames {
  user(id: string): string;
  channel(id: string): string;
}

interface RenderedButton {
  number: number;
  text: string;
  actionId: string;
  value?: string;
  url?: string;
}

export interface RenderedBlocks {
  lines: string[];
  buttons: RenderedButton[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const plainNames: RenderNames = { user: (id) => id, channel: (id) => id };

/** The emoji the bot's messages use, as Slack shows them (a terminal shows the character); others keep their :name:. */
const EMOJI: Record<string, string> = {
  white_check_mark: '✅',
  heavy_check_mark: '✔',
  x: '❌',
  warning: '⚠️',
  hourglass_flowing_sand: '⏳',
  arrows_counterclockwise: '🔄',
  mag: '🔍',
  memo: '📝',
  no_entry: '⛔',
  lock: '🔒',
  bulb: '💡',
  star: '⭐',
  chart_with_upwards_trend: '📈',
  chart_with_downwards_trend: '📉',
  calendar: '📅',
  bell: '🔔',
  link: '🔗',
  email: '📧',
  rocket: '🚀',
  wrench: '🔧',
  world_map: '🗺️',
  frame_with_picture: '🖼️',
  speech_balloon: '💬',
  round_pushpin: '📍',
  newspaper: '📰',
  inbox_tray: '📥',
  outbox_tray: '📤',
  robot_face: '🤖',
  no_entry_sign: '🚫',
  thumbsup: '👍',
  thumbsdown: '👎',
  information_source: 'ℹ️',
  key: '🔑',
  bookmark: '🔖',
  rotating_light: '🚨',
  heavy_multiplication_x: '✖️',
  scissors: '✂️',
  ledger: '📒',
  hourglass: '⌛',
  repeat: '🔁',
  zzz: '💤',
  wave: '👋',
  twisted_rightwards_arrows: '🔀',
  trophy: '🏆',
  no_bell: '🔕',
};

/** `&lt;` `&gt;` `&amp;` back to characters; `&amp;` last so `&amp;lt;` stays the text `&lt;`. */
function decodeEntities(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/** One `<…>` control sequence as words. */
function controlText(inner: string, names: RenderNames): string {
  const [target = '', ...rest] = inner.split('|');
  const label = rest.length ? decodeEntities(rest.join('|')) : undefined;
  if (target.startsWith('@')) return `@${label ?? names.user(target.slice(1))}`;
  if (target.startsWith('#')) return `#${label ?? names.channel(target.slice(1))}`;
  if (target.startsWith('!subteam^')) return label ?? `@${target.slice('!subteam^'.length)}`;
  if (target.startsWith('!date^')) return label ?? target;
  if (target.startsWith('!')) return `@${target.slice(1)}`;
  const url = decodeEntities(target);
  if (url.startsWith('mailto:')) return label ?? url.slice('mailto:'.length);
  // A label that is only the address without its scheme says nothing the address does not.
  const bare = url.replace(/^https?:\/\//i, '').replace(/\/$/, '');
  if (!label || label === url || label.replace(/\/$/, '') === bare) return url;
  return `${label} (${url})`;
}

/** Plain prose: *bold* and _italic_ lose their markers (only at word edges, so snake_case stays), emoji. */
function proseText(text: string): string {
  return decodeEntities(
    text
      .replace(/(^|[^\w*])\*(?=\S)([^*\n]*?\S)\*(?![\w*])/g, '$1$2')
      .replace(/(^|[^\w_])_(?=\S)([^_\n]*?\S)_(?![\w_])/g, '$1$2')
      .replace(/:([a-z0-9_+-]+):/g, (whole, name: string) => EMOJI[name] ?? whole),
  );
}

/**
 * Bold that holds a code span (*No client `acme`.*): its markers fall on both sides of the span, so they are
 * dropped before the text is cut at spans. Spans are set aside first, so a `*` inside one is never a marker.
 */
function unboldAroundCode(text: string): string {
  const spans: string[] = [];
  const masked = text.replace(/`[^`\n]*`/g, (span) => `\uE000${spans.push(span) - 1}\uE001`);
  return masked
    .replace(/(^|[^\w*])\*(?=[^\s*])([^*\n]*?\uE001[^*\n]*?)\*(?![\w*])/g, '$1$2')
    .replace(/\uE000(\d+)\uE001/g, (_, n: string) => spans[Number(n)] ?? '');
}

/** mrkdwn → terminal text. Code spans keep their backticks and are not touched inside. */
export function mrkdwnToText(text: string, names: RenderNames = plainNames): string {
  return unboldAroundCode(text)
    .split(/(<[^<>\n]*>|`[^`\n]*`)/)
    .map((part, i) => {
      if (i % 2 === 0) return proseText(part);
      if (part.startsWith('`')) return decodeEntities(part);
      return controlText(part.slice(1, -1), names);
    })
    .join('');
}

function textObject(t: unknown, names: RenderNames): string {
  if (!isObj(t) || typeof t.text !== 'string') return '';
  return t.type === 'mrkdwn' ? mrkdwnToText(t.text, names) : t.text;
}

function buttonOf(el: Obj, number: number): RenderedButton {
  const button: RenderedButton = {
    number,
    text: isObj(el.text) ? String(el.text.text ?? '') : '',
    actionId: String(el.action_id ?? ''),
  };
  if (typeof el.value === 'string') button.value = el.value;
  if (typeof el.url === 'string') button.url = el.url;
  return button;
}

function buttonLabel(b: RenderedButton, style: unknown): string {
  const mark = style === 'danger' ? ' (!)' : '';
  return `[${b.number}] ${b.text}${mark}${b.url ? ` ↗ ${b.url}` : ''}`;
}

/** A non-button interactive element, described so a person knows it is there (the console cannot use it). */
function otherElement(el: Obj, names: RenderNames): string {
  const placeholder = textObject(el.placeholder, names);
  return `(${String(el.type).replace(/_/g, ' ')}${placeholder ? `: ${placeholder}` : ''})`;
}

function richText(el: unknown): string {
  if (!isObj(el)) return '';
  if (typeof el.text === 'string') return el.text;
  if (el.type === 'user' && typeof el.user_id === 'string') return `@${el.user_id}`;
  if (el.type === 'link' && typeof el.url === 'string') return el.url;
  if (Array.isArray(el.elements)) return el.elements.map(richText).join('');
  return '';
}

/**
 * Blocks → lines and the buttons they hold, numbered from `firstButton`. Headers, sections (text, fields,
 * accessory), context, dividers, actions, images and rich text; anything else is named in brackets.
 */
export function renderBlocks(
  blocks: readonly unknown[],
  opts: { names?: RenderNames; firstButton?: number } = {},
): RenderedBlocks {
  const names = opts.names ?? plainNames;
  const lines: string[] = [];
  const buttons: RenderedButton[] = [];
  const addButton = (el: Obj): string => {
    const b = buttonOf(el, (opts.firstButton ?? 1) + buttons.length);
    buttons.push(b);
    return buttonLabel(b, el.style);
  };
  const push = (text: string) => {
    for (const line of text.split('\n')) lines.push(line);
  };
  for (const block of blocks) {
    if (!isObj(block)) continue;
    switch (block.type) {
      case 'header':
        push(`== ${textObject(block.text, names)} ==`);
        break;
      case 'section': {
        if (block.text) push(textObject(block.text, names));
        if (Array.isArray(block.fields)) {
          for (const f of block.fields) push(textObject(f, names).replace(/:?\n/, ': '));
        }
        const acc = block.accessory;
        if (isObj(acc)) {
          if (acc.type === 'button') push(addButton(acc));
          else if (acc.type === 'image') push(`[image: ${String(acc.alt_text ?? '')}]`);
          else push(otherElement(acc, names));
        }
        break;
      }
      case 'context': {
        const parts = (Array.isArray(block.elements) ? block.elements : []).map((el) =>
          isObj(el) && el.type === 'image' ? `[${String(el.alt_text ?? 'image')}]` : textObject(el, names),
        );
        push(parts.filter(Boolean).join(' · '));
        break;
      }
      case 'divider':
        lines.push('────────────────────');
        break;
      case 'actions': {
        const els = (Array.isArray(block.elements) ? block.elements : []).filter(isObj);
        lines.push(
          els.map((el) => (el.type === 'button' ? addButton(el) : otherElement(el, names))).join('  '),
        );
        break;
      }
      case 'image':
        lines.push(`[image: ${String(block.alt_text ?? block.image_url ?? '')}]`);
        break;
      case 'rich_text':
        push(richText(block));
        break;
      case 'input':
        lines.push(`(input: ${textObject(block.label, names)})`);
        break;
      default:
        lines.push(`[${String(block.type)}]`);
    }
  }
  return { lines, buttons };
}

/** A message's visible content: its blocks, or its top-level text when it has none. */
export function renderMessageBody(
  message: { text?: string; blocks?: readonly unknown[] },
  opts: { names?: RenderNames; firstButton?: number } = {},
): RenderedBlocks {
  if (message.blocks?.length) return renderBlocks(message.blocks, opts);
  return { lines: mrkdwnToText(message.text ?? '', opts.names).split('\n'), buttons: [] };
}

/** Lines under a heading: the first after the heading, the rest indented. */
export function indentUnder(heading: string, lines: readonly string[], indent = '  '): string[] {
  const [first = '', ...rest] = lines;
  return [`${heading}${first}`, ...rest.map((l) => (l ? `${indent}${l}` : l))];
}
