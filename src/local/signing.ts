import { createHmac } from 'node:crypto';

// A type alias (not an interface) so the headers spread into any Record<string, string>.
export type SlackSignatureHeaders = {
  'x-slack-request-timestamp': string;
  'x-slack-signature': string;
};

/**
 * Signs a request body the way Slack does (v0: HMAC-SHA256 of `v0:<timestamp>:<body>` with the signing
 * secret, hex). `timestamp` is in seconds; default now. Bolt refuses timestamps older than five minutes.
 */
export function signSlackRequest(secret: string, body: string, timestamp?: number): SlackSignatureHeaders {
  const ts = String(timestamp ?? Math.floor(Date.now() / 1000));
  const digest = createHmac('sha256', secret).update(`v0:${ts}:${body}`).digest('hex');
  return { 'x-slack-request-timestamp': ts, 'x-slack-signature': `v0=${digest}` };
}
