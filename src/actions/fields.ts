import { z } from 'zod';

/**
 * The reusable field kinds of the action catalogue. Every value arrives as text (a command-line word, a modal
 * input, an assistant tool's argument), so each schema takes a string, trims it and turns it into what the
 * gateway is sent; numbers are coerced here, once. Text is plain text on every surface: a single-line value
 * holds no line break and no control character, a multi-line one (a body, an email's html) no control but its
 * line breaks and tabs. Messages are written for the person who typed the value, not for a developer, and name
 * the field.
 */

export type FieldKind =
  | 'text'
  | 'url'
  | 'email'
  | 'number'
  | 'latitude'
  | 'longitude'
  | 'multiline'
  | 'html'
  | 'select'
  | 'list';

export interface ActionField {
  name: string;
  label: string;
  kind: FieldKind;
  required: boolean;
  /** Validates one present value (the caller decides about absence through `required`). */
  schema: z.ZodType;
  placeholder?: string;
  hint?: string;
  /** A select whose options are rows of a resource, e.g. the blog's category from `blog_categories`. */
  optionsFrom?: OptionsSource;
  /**
   * Read from its resource when the approval is asked for (its title goes on the card), so the approved run is
   * queued without reading it again: nothing stands between an Approve click and the POST but Redis.
   */
  checkedOnAsk?: boolean;
  /** Where a person finds a value to give, said when the field is missing (`/gateway blogs` lists the posts). */
  find?: string;
  /** Why the bot needs the field although the gateway may not (a clause), said in help and when it is missing. */
  requiredBecause?: string;
  /** An id of a row in one of these resources (`call_id`): a value none of them has is refused before queueing. */
  refersTo?: { resources: readonly string[]; field: 'id' };
}

/** The rows a select offers: every row of a small resource, or the newest few of a larger one. */
export interface OptionsSource {
  resource: string;
  valueField: string;
  labelField: string;
  /**
   * The row field that dates a row: the select offers the newest rows first, a bounded number of them (the
   * gateway cannot order this resource), and says so. Unset: the rows as the gateway sends them.
   */
  newest?: string;
  /** Row fields shown after the label (`draft`, `2026-11-20`). */
  detail?: readonly string[];
}

/** Kinds whose modal input spans several lines. */
export const MULTILINE_KINDS: ReadonlySet<FieldKind> = new Set(['multiline', 'html', 'list']);

const trimmed = () => z.string().trim();

/**
 * Line breaks of every kind: in a single-line value one would let it pass for a line of the message it is shown
 * in (`Approved by @alice`), or end a mail header at the gateway and start another (`Bcc:`).
 */
const LINE_BREAKS = new Set([0x0a, 0x0b, 0x0c, 0x0d, 0x85, 0x2028, 0x2029]);
/** What a multi-line value may hold of the controls: its line breaks and tabs. */
const MULTILINE_CONTROLS = new Set([0x09, 0x0a, 0x0d]);

/** Why `text` cannot be a value of the field `label`, or undefined: C0 and C1 controls, DEL, line separators. */
function controlProblem(label: string, text: string, lines: 'one' | 'many'): string | undefined {
  for (const ch of text) {
    const point = ch.codePointAt(0) ?? 0;
    const control = point < 0x20 || (point >= 0x7f && point <= 0x9f);
    if (lines === 'many' && MULTILINE_CONTROLS.has(point)) continue;
    if (lines === 'one' && LINE_BREAKS.has(point))
      return `${label} must be one line: remove the line break in it`;
    if (control || point === 0x2028 || point === 0x2029) {
      const hex = point.toString(16).toUpperCase().padStart(4, '0');
      if (point === 0x09) return `${label} contains a tab: use a space instead`;
      return `${label} contains an invisible control character (U+${hex}): remove it, or type the value again`;
    }
  }
  return undefined;
}

/** Text refused when it holds a control (line breaks too, unless `many`), then trimmed. */
function plainText(label: string, lines: 'one' | 'many' = 'one') {
  return z.string().transform((text, ctx) => {
    const problem = controlProblem(label, text, lines);
    if (!problem) return text.trim();
    ctx.addIssue({ code: 'custom', message: problem });
    return z.NEVER;
  });
}

function textSchema(label: string, max = 500, lines: 'one' | 'many' = 'one'): z.ZodType {
  return plainText(label, lines).pipe(
    z.string().min(1, `${label} is empty`).max(max, `${label} is too long (at most ${max} characters)`),
  );
}

/** Longer URLs are cut or refused by browsers, Slack and most sites; none of a client's pages needs one. */
const MAX_URL_LENGTH = 2_000;

/** An http(s) address the gateway could never reach from outside: localhost, an IP literal, a bare name. */
function isLocalAddress(text: string): boolean {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  const host = url.hostname.toLowerCase();
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host.startsWith('[') ||
    /^\d{1,3}(\.\d{1,3}){3}$/.test(host) ||
    !host.includes('.')
  );
}

function urlSchema(label: string): z.ZodType {
  return plainText(label).pipe(
    z
      .string()
      .refine((text) => !/\s/.test(text), {
        message: `${label} cannot contain spaces: write a space as %20, like https://example.com/my%20page`,
        abort: true,
      })
      .refine((text) => text.length <= MAX_URL_LENGTH, {
        message: `${label} is too long: at most ${MAX_URL_LENGTH.toLocaleString('en-US')} characters`,
        abort: true,
      })
      .refine((text) => !isLocalAddress(text), {
        message: `${label} must be a public web address, like https://example.com/page: the gateway cannot reach localhost, a bare IP address or a name without a domain`,
        abort: true,
      })
      .pipe(
        z.url({
          protocol: /^https?$/,
          hostname: z.regexes.domain,
          message: `${label} must be a web address starting with http:// or https://, like https://example.com/page`,
        }),
      ),
  );
}

function emailSchema(label: string): z.ZodType {
  return plainText(label).pipe(
    z.email({ message: `${label} must be an email address, like name@example.com` }),
  );
}

/** Text → number. An empty or non-numeric text fails with `message` instead of becoming 0 or NaN. */
function numeric(message: string): z.ZodType<number, string> {
  return trimmed().transform((text, ctx) => {
    const value = text === '' ? Number.NaN : Number(text);
    if (!Number.isFinite(value)) {
      ctx.addIssue({ code: 'custom', message });
      return z.NEVER;
    }
    return value;
  });
}

function positiveNumberSchema(label: string, options: { integer?: boolean; max?: number } = {}): z.ZodType {
  const what = options.integer ? 'a whole number' : 'a number';
  const range = options.max === undefined ? 'above 0' : `from 1 to ${options.max}`;
  const message = `${label} must be ${what} ${range}`;
  let schema = z.number().positive(message);
  if (options.integer) schema = schema.int(message);
  if (options.max !== undefined) schema = schema.max(options.max, message);
  return numeric(message).pipe(schema);
}

function coordinateSchema(label: string, limit: 90 | 180): z.ZodType {
  const message = `${label} must be a number from -${limit} to ${limit}`;
  // Coordinates copied from a map come as `30.2672, -97.7431`: the comma belongs to neither number.
  return z
    .string()
    .transform((text) => text.trim().replace(/^\(|,$|\)$/g, ''))
    .pipe(numeric(message))
    .pipe(z.number().min(-limit, message).max(limit, message));
}

/**
 * One item per line (any line break); on one line (the command line) `;` separates items too, and `,` where
 * `commas` says so. Each item is one line of plain text.
 */
function listSchema(label: string, commas: boolean): z.ZodType {
  const separator = commas ? /\r\n|[\n\r\u2028\u2029;,]/ : /\r\n|[\n\r\u2028\u2029;]/;
  return z
    .string()
    .transform((text) =>
      text
        .split(separator)
        .map((item) => item.replace(/^\s*[-*•]\s*/, '').trim())
        .filter(Boolean),
    )
    .pipe(
      z
        .array(
          z
            .string()
            .max(500, `each item of ${label} must be at most 500 characters`)
            .pipe(plainText(`Each item of ${label}`)),
        )
        .min(1, `${label} is empty`),
    );
}

interface FieldOptions {
  label: string;
  required?: boolean;
  placeholder?: string;
  hint?: string;
}

function make(name: string, kind: FieldKind, schema: z.ZodType, options: FieldOptions): ActionField {
  const field: ActionField = {
    name,
    label: options.label,
    kind,
    required: options.required ?? false,
    schema,
  };
  if (options.placeholder !== undefined) field.placeholder = options.placeholder;
  if (options.hint !== undefined) field.hint = options.hint;
  return field;
}

/** Builders for each kind: `field.url('url', { label: 'Page URL', required: true })`. */
export const field = {
  text: (name: string, o: FieldOptions & { max?: number }) =>
    make(name, 'text', textSchema(o.label, o.max), o),
  multiline: (name: string, o: FieldOptions & { max?: number }) =>
    make(name, 'multiline', textSchema(o.label, o.max ?? 3000, 'many'), o),
  html: (name: string, o: FieldOptions) => make(name, 'html', textSchema(o.label, 3000, 'many'), o),
  url: (name: string, o: FieldOptions) => make(name, 'url', urlSchema(o.label), o),
  email: (name: string, o: FieldOptions) => make(name, 'email', emailSchema(o.label), o),
  positive: (name: string, o: FieldOptions & { integer?: boolean; max?: number }) =>
    make(name, 'number', positiveNumberSchema(o.label, o), o),
  latitude: (name: string, o: FieldOptions) => make(name, 'latitude', coordinateSchema(o.label, 90), o),
  longitude: (name: string, o: FieldOptions) => make(name, 'longitude', coordinateSchema(o.label, 180), o),
  list: (name: string, o: FieldOptions & { commas?: boolean }) =>
    make(name, 'list', listSchema(o.label, o.commas ?? false), o),
  select: (name: string, o: FieldOptions & { from: NonNullable<ActionField['optionsFrom']> }) => ({
    ...make(name, 'select', textSchema(o.label, 150), o),
    optionsFrom: o.from,
  }),
};

/** A field named only by discovery's `required_fields`: free text, required. */
export function discoveredField(name: string): ActionField {
  return field.text(name, { label: humanize(name), required: true, max: 3000 });
}

/** `prospectUrl` → `Prospect url`, `brand_name` → `Brand name`. */
export function humanize(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase()
    .replace(/\b(url|id|seo|faq|gbp|llm|kd|cta|html)\b/g, (w) => w.toUpperCase());
  return words.charAt(0).toUpperCase() + words.slice(1);
}
