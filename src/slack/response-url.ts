import { request } from 'undici';
import type { SlackMessage } from '../views/blocks.js';

/**
 * Posts an ephemeral answer to a command's response_url with undici: the same message Bolt's `respond()` would
 * send, without its axios stack on the answer path (it was the largest single cost per command). The URL comes
 * from a signature-verified Slack request.
 */
export async function postToResponseUrl(
  url: string,
  payload: Record<string, unknown> | string | Uint8Array,
): Promise<void> {
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof payload === 'string' || payload instanceof Uint8Array ? payload : JSON.stringify(payload),
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) {
    throw new Error(`response_url answered HTTP ${res.statusCode}: ${text.slice(0, 200)}`);
  }
}

/**
 * A message as an ephemeral response_url body, serialised and UTF-8 encoded once per message object: a static
 * answer (the help, built once per catalogue) is sent many times, and its 7 KB of JSON need not be written nor
 * encoded again each time (undici encodes a string body on every request; a byte body goes out as it is).
 */
const serialised = new WeakMap<SlackMessage, Buffer>();

export function ephemeralBody(message: SlackMessage): Buffer {
  let body = serialised.get(message);
  if (body === undefined) {
    body = jsonBytes({ response_type: 'ephemeral', text: message.text, blocks: message.blocks });
    serialised.set(message, body);
  }
  return body;
}

/** A value's JSON as UTF-8 bytes, for a body sent more than once. */
export function jsonBytes(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value));
}
