import { request } from 'undici';
import type { SlackMessage } from '../views/blocks.js';

/**
 * Posts an ephemeral answer to a command's response_url with undici: the same message Bolt's `respond()` would
 * send, without its axios stack on the answer path (it was the largest single cost per command). The URL comes
 * from a signature-verified Slack request.
 */
export async function postToResponseUrl(
  url: string,
  payload: Record<string, unknown> | string,
): Promise<void> {
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof payload === 'string' ? payload : JSON.stringify(payload),
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) {
    throw new Error(`response_url answered HTTP ${res.statusCode}: ${text.slice(0, 200)}`);
  }
}

/**
 * A message as an ephemeral response_url body, serialised once per message object: a static answer (the help,
 * built once per catalogue) is sent many times, and its 7 KB of JSON need not be written again each time.
 */
const serialised = new WeakMap<SlackMessage, string>();

export function ephemeralBody(message: SlackMessage): string {
  let body = serialised.get(message);
  if (body === undefined) {
    body = JSON.stringify({ response_type: 'ephemeral', text: message.text, blocks: message.blocks });
    serialised.set(message, body);
  }
  return body;
}
