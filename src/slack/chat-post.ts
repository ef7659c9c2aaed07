import {
  type MessageMetadata,
  type WebAPICallResult,
  WebAPIHTTPError,
  WebAPIPlatformError,
  WebAPIRateLimitedError,
  WebAPIRequestError,
} from '@slack/web-api';
import { Agent, type Dispatcher } from 'undici';
import type { SlackMessage } from '../views/blocks.js';

/**
 * `chat.postMessage` as one undici JSON POST: every new message and thread reply of the outbound
 * (slack-poster.ts), a command's answer among them. WebClient spends most of an answer's
 * Slack CPU on its request queue, retry wrapper and form encoding; this sends the same call with the same
 * outcomes a caller sees from WebClient as the web role configures it (app.ts): Slack's `ok: false` is a
 * WebAPIPlatformError (`not_in_channel`, `channel_not_found` in `data.error`); a 429 waits its Retry-After and
 * tries again; a non-200 or a failed request is retried with backoff; what is left is WebClient's own error
 * class with its code. Unlike WebClient's default, a call that hangs gives up after `timeoutMs` (10 s unless set).
 */

export interface ChatPostOptions {
  apiUrl: string;
  token: string;
  /** Tries after the first, with backoff (the web role's WebClient retries 3 times). */
  retries?: number;
  minTimeoutMs?: number;
  maxTimeoutMs?: number;
  /** Set to hand a 429 back at once, as WebClient's rejectRateLimitedCalls does. */
  rejectRateLimitedCalls?: boolean;
  /** How long one try waits for Slack's answer (default 10 s). */
  timeoutMs?: number;
  dispatcher?: Dispatcher;
}

export type ChatPostMessage = Pick<SlackMessage, 'text'> & Partial<Pick<SlackMessage, 'blocks'>>;

/**
 * A message's `"text":…,"blocks":…` JSON as UTF-8 bytes, written and encoded once per message object: a page
 * reused for the same data (read-resource.ts) goes out again without being serialised or encoded again (undici
 * encodes a string body on every request; bytes are copied as they are).
 */
const fragments = new WeakMap<ChatPostMessage, Buffer>();

function messageJson(message: ChatPostMessage): Buffer {
  let fragment = fragments.get(message);
  if (fragment === undefined) {
    fragment = Buffer.from(JSON.stringify({ text: message.text, blocks: message.blocks }).slice(1, -1));
    fragments.set(message, fragment);
  }
  return fragment;
}

const CLOSE = Buffer.from('}');

const REQUEST_TIMEOUT_MS = 10_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Thrown inside one try to say "try again" without a backoff (a 429 already waited its Retry-After). */
class RateLimitWaited extends Error {}

export class ChatPoster {
  private readonly url: string;
  private readonly origin: string;
  private readonly path: string;
  private readonly headers: Record<string, string>;
  private readonly dispatcher: Dispatcher;

  constructor(private readonly options: ChatPostOptions) {
    const base = options.apiUrl.endsWith('/') ? options.apiUrl : `${options.apiUrl}/`;
    this.url = `${base}chat.postMessage`;
    const parsed = new URL(this.url);
    this.origin = parsed.origin;
    this.path = parsed.pathname;
    this.headers = {
      'content-type': 'application/json; charset=utf-8',
      authorization: `Bearer ${options.token}`,
    };
    this.dispatcher =
      options.dispatcher ??
      new Agent({
        headersTimeout: options.timeoutMs ?? REQUEST_TIMEOUT_MS,
        bodyTimeout: options.timeoutMs ?? REQUEST_TIMEOUT_MS,
      });
  }

  /** Posts a message in a channel (in a thread when given, with `metadata` when given); resolves with its ts. */
  async postMessage(
    channel: string,
    message: ChatPostMessage,
    threadTs?: string,
    metadata?: MessageMetadata,
  ): Promise<{ ts: string }> {
    // Undefined fields (no blocks, no thread) drop out of the JSON, as WebClient drops them from its form.
    const thread = threadTs ? `,"thread_ts":${JSON.stringify(threadTs)}` : '';
    const meta = metadata ? `,"metadata":${JSON.stringify(metadata)}` : '';
    const fragment = messageJson(message);
    const head = Buffer.from(
      `{"channel":${JSON.stringify(channel)}${thread}${meta}${fragment.length > 0 ? ',' : ''}`,
    );
    const body = Buffer.concat([head, fragment, CLOSE]);
    const retries = this.options.retries ?? 3;
    let backoff = this.options.minTimeoutMs ?? 500;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.once(body);
      } catch (error) {
        if (error instanceof WebAPIPlatformError || error instanceof WebAPIRateLimitedError) throw error;
        if (attempt >= retries) {
          if (error instanceof WebAPIHTTPError || error instanceof WebAPIRequestError) throw error;
          throw new WebAPIRequestError(error instanceof Error ? error : new Error(String(error)));
        }
        if (!(error instanceof RateLimitWaited)) {
          await sleep(backoff);
          backoff = Math.min(backoff * 2, this.options.maxTimeoutMs ?? 10_000);
        }
      }
    }
  }

  private async once(body: Buffer): Promise<{ ts: string }> {
    let res: Dispatcher.ResponseData;
    try {
      res = await this.dispatcher.request({
        origin: this.origin,
        path: this.path,
        method: 'POST',
        headers: this.headers,
        body,
      });
    } catch (error) {
      throw new WebAPIRequestError(error instanceof Error ? error : new Error(String(error)));
    }
    if (res.statusCode === 429) {
      await res.body.dump();
      const retrySec = Number.parseInt(String(res.headers['retry-after'] ?? ''), 10);
      if (Number.isNaN(retrySec))
        throw new WebAPIRequestError(new Error('Retry header did not contain a valid timeout'));
      if (this.options.rejectRateLimitedCalls) throw new WebAPIRateLimitedError(retrySec);
      await sleep(retrySec * 1_000);
      throw new RateLimitWaited(`A rate limit was exceeded (url: ${this.url}, retry-after: ${retrySec})`);
    }
    const text = await res.body.text();
    if (res.statusCode !== 200) {
      throw new WebAPIHTTPError(res.statusCode, '', flatHeaders(res.headers), text);
    }
    // Slack echoes the whole message back: on success only `ts` is wanted, read without parsing the echo.
    const posted = postedTs(text);
    if (posted !== undefined) return { ts: posted };
    const result = JSON.parse(text) as WebAPICallResult & { error?: string; ts?: unknown };
    if (!result.ok) throw new WebAPIPlatformError({ ...result, error: result.error ?? 'unknown_error' });
    return { ts: typeof result.ts === 'string' ? result.ts : '' };
  }
}

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** The index just past the JSON string whose opening quote is at `at`, or -1. */
function stringEnd(text: string, at: number): number {
  for (let i = at + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) i++;
    else if (c === 0x22) return i + 1;
  }
  return -1;
}

/** The index just past the JSON value that starts at `at` (nested ones skipped whole, strings minded), or -1. */
function valueEnd(text: string, at: number): number {
  const first = text.charCodeAt(at);
  if (first === 0x22) return stringEnd(text, at);
  if (first !== 0x7b && first !== 0x5b) {
    // A number, true, false or null: up to the next comma, closing bracket or space.
    let i = at;
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x2c || c === 0x7d || c === 0x5d || isSpace(c)) break;
    }
    return i > at ? i : -1;
  }
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i = stringEnd(text, i) - 1;
      if (i < 0) return -1;
    } else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/**
 * The `ts` of a successful chat.postMessage answer (top-level `"ok":true` and a string `ts`), read from the
 * top-level fields alone; undefined for anything else (a failure, an answer it cannot read), which the caller
 * then parses whole.
 */
export function postedTs(text: string): string | undefined {
  let i = 0;
  const skip = () => {
    while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  };
  skip();
  if (text.charCodeAt(i) !== 0x7b) return undefined;
  i++;
  let ok = false;
  let ts: string | undefined;
  for (;;) {
    skip();
    if (text.charCodeAt(i) === 0x7d) break;
    if (text.charCodeAt(i) !== 0x22) return undefined;
    const keyEnd = stringEnd(text, i);
    if (keyEnd < 0) return undefined;
    const key = text.slice(i + 1, keyEnd - 1);
    i = keyEnd;
    skip();
    if (text.charCodeAt(i) !== 0x3a) return undefined;
    i++;
    skip();
    const end = valueEnd(text, i);
    if (end < 0) return undefined;
    if (key === 'ok') ok = text.slice(i, end) === 'true';
    else if (key === 'ts' && text.charCodeAt(i) === 0x22) ts = JSON.parse(text.slice(i, end)) as string;
    i = end;
    skip();
    if (text.charCodeAt(i) === 0x2c) i++;
    else if (text.charCodeAt(i) === 0x7d) break;
    else return undefined;
  }
  return ok && ts !== undefined ? ts : undefined;
}

function flatHeaders(headers: Dispatcher.ResponseData['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers)) if (value !== undefined) out[key] = String(value);
  return out;
}
