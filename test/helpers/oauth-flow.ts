import { createHash, randomBytes } from 'node:crypto';
import type { Harness } from './bot-harness.js';
import { OAuthBrowser } from './oauth-browser.js';

/**
 * The OAuth steps an assistant takes, one HTTP request each (for the refusal tests, which bend one step at a
 * time): register, the authorization URL with PKCE, the code exchange, a refresh, a revocation, a tool call.
 */

export const REDIRECT = 'http://127.0.0.1:33418/callback';

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export const baseOf = (h: Harness, host = '127.0.0.1') => `http://${host}:${h.runtime.port}`;

export async function register(base: string, metadata: Record<string, unknown> = {}): Promise<Response> {
  return fetch(`${base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Refusal Tester',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...metadata,
    }),
  });
}

export async function registeredClient(
  base: string,
  metadata: Record<string, unknown> = {},
): Promise<string> {
  const res = await register(base, metadata);
  const body = (await res.json()) as { client_id?: string };
  if (!body.client_id) throw new Error(`registration failed: ${res.status} ${JSON.stringify(body)}`);
  return body.client_id;
}

export function authorizeUrl(
  base: string,
  p: {
    clientId: string;
    challenge?: string | undefined;
    redirectUri?: string;
    scope?: string;
    resource?: string | null;
    method?: string;
  },
): URL {
  const url = new URL(`${base}/oauth/authorize`);
  const params: Record<string, string> = {
    response_type: 'code',
    client_id: p.clientId,
    redirect_uri: p.redirectUri ?? REDIRECT,
    scope: p.scope ?? 'gateway:read gateway:act',
    state: randomBytes(8).toString('hex'),
  };
  if (p.challenge !== undefined) {
    params.code_challenge = p.challenge;
    params.code_challenge_method = p.method ?? 'S256';
  }
  if (p.resource !== null) params.resource = p.resource ?? `${base}/mcp`;
  url.search = new URLSearchParams(params).toString();
  return url;
}

export async function tokenRequest(
  base: string,
  form: Record<string, string>,
): Promise<{ status: number; body: Record<string, string> }> {
  const res = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

/** Signs in as the stand-in's current person, allows, and returns the code (with its verifier and client). */
export async function authorizedCode(
  base: string,
  clientId: string,
  options: { scope?: string } = {},
): Promise<{ code: string; verifier: string; clientId: string }> {
  const { verifier, challenge } = pkce();
  const back = await new OAuthBrowser(REDIRECT).allow(
    authorizeUrl(base, { clientId, challenge, ...options }),
  );
  const code = back.searchParams.get('code');
  if (!code) throw new Error(`no code: ${back.href}`);
  return { code, verifier, clientId };
}

export async function exchange(
  base: string,
  c: { code: string; verifier: string; clientId: string },
  overrides: Record<string, string> = {},
) {
  return tokenRequest(base, {
    grant_type: 'authorization_code',
    code: c.code,
    code_verifier: c.verifier,
    client_id: c.clientId,
    redirect_uri: REDIRECT,
    resource: `${base}/mcp`,
    ...overrides,
  });
}

export async function refresh(base: string, clientId: string, refreshToken: string) {
  return tokenRequest(base, {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: clientId,
    resource: `${base}/mcp`,
  });
}

/** `tools/call` on /mcp with a bearer token: the HTTP status and the JSON-RPC answer. */
export async function callTool(
  base: string,
  token: string,
  name: string,
  args: Record<string, unknown>,
): Promise<{
  status: number;
  body: { result?: { isError?: boolean; content?: { text: string }[] }; error?: unknown };
  /** The WWW-Authenticate challenge, when the answer has one. */
  challenge: string | null;
}> {
  const res = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
  const text = await res.text();
  const json = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? '{}');
  return { status: res.status, body: JSON.parse(json), challenge: res.headers.get('www-authenticate') };
}
