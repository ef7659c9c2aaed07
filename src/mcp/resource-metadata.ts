import type { IncomingMessage, ServerResponse } from 'node:http';
import { publicBase, quoted } from '../http/public-url.js';
import type { CoreServices } from '../services.js';

/**
 * What the assistant-tool server says about itself (RFC 9728): its protected-resource metadata, the pointer to it
 * in a 401's challenge, and the scope an action needs, named as the metadata names it. Every URL is built from
 * PUBLIC_URL or the Host's parsed name and port (http/public-url.ts), never from the header as sent.
 */

export const MCP_PATH = '/mcp';
export const METADATA_PATH = '/.well-known/oauth-protected-resource';

/** The scopes a token may hold, as the metadata lists them: OAuth's when sign-in is on, else the minted kinds. */
export function scopeNames(signIn: boolean): { read: string; act: string } {
  return signIn ? { read: 'gateway:read', act: 'gateway:act' } : { read: 'read', act: 'write' };
}

export interface ResourceUrls {
  /** This server's resource identifier (`…/mcp`). */
  resource: string;
  /** Where its protected-resource metadata answers. */
  metadata: string;
  /** The bot's public address. */
  base: string;
}

/** The URLs of this request's server, or undefined when its Host is not one the bot answers to. */
export function resourceUrls(services: CoreServices, req: IncomingMessage): ResourceUrls | undefined {
  const base = publicBase(services.config.mcp, req);
  if (!base) return undefined;
  return { base, resource: `${base}${MCP_PATH}`, metadata: `${base}${METADATA_PATH}${MCP_PATH}` };
}

/** The `WWW-Authenticate` value of a 401: where the metadata is, and whether the token sent was refused. */
export function unauthorizedChallenge(urls: ResourceUrls, tokenSent: boolean): string {
  return `Bearer resource_metadata=${quoted(urls.metadata)}${tokenSent ? ', error="invalid_token"' : ''}`;
}

/** Browser-based clients read the metadata from another origin; it holds nothing secret and takes no credentials. */
const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, OPTIONS',
  'access-control-allow-headers': 'mcp-protocol-version, content-type',
  'access-control-max-age': '86400',
};

/** The metadata route: GET answers the document, OPTIONS a CORS preflight. */
export function metadataRoute(services: CoreServices) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    // The Host is checked (it names the URLs); a foreign Origin is not refused here, as the document is public.
    const urls = resourceUrls(services, req);
    if (!urls) {
      send(res, 403, { error: 'forbidden', error_description: 'Host not allowed' });
      return;
    }
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { ...CORS, allow: 'GET, OPTIONS' });
      res.end();
      return;
    }
    const signIn = Boolean(services.tokens.signIn);
    const scopes = scopeNames(signIn);
    send(res, 200, {
      resource: urls.resource,
      bearer_methods_supported: ['header'],
      resource_name: 'gateway-bot assistant tools',
      // The bot's own authorization server (oauth/) when sign-in is configured; else tokens minted in Slack only.
      authorization_servers: signIn ? [urls.base] : [],
      scopes_supported: [scopes.read, scopes.act],
    });
  };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...CORS });
  res.end(JSON.stringify(body));
}
