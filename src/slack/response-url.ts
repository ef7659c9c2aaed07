import { request } from 'undici';

/**
 * Posts an ephemeral answer to a command's response_url with undici: the same message Bolt's `respond()` would
 * send, without its axios stack on the answer path (it was the largest single cost per command). The URL comes
 * from a signature-verified Slack request.
 */
export async function postToResponseUrl(url: string, payload: Record<string, unknown>): Promise<void> {
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(payload),
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) {
    throw new Error(`response_url answered HTTP ${res.statusCode}: ${text.slice(0, 200)}`);
  }
}
