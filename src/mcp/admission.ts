import type { IncomingMessage, ServerResponse } from 'node:http';
import { AccessError } from '../access/index.js';
import type { CoreServices } from '../services.js';
import type { BearerIdentity } from '../tokens/index.js';
import { BodyTooLarge, readBody, rebindingRefusal } from './guards.js';
import { isBatch, takeMessage } from './rate.js';
import { type ResourceUrls, resourceUrls, unauthorizedChallenge } from './resource-metadata.js';
import { scopeStepUp } from './scope-step-up.js';

/**
 * The checks every request to `POST /mcp` passes before the protocol layer sees it, in order: the Host, the
 * method, the bearer token and its person as Slack tells them now; then the body, one message, under the rate
 * and the token's scope. Each refusal is answered here, as JSON-RPC over the HTTP status it means.
 */

/** A tool call's arguments are small; an article's HTML for an email is the largest. */
export const MAX_BODY_BYTES = 1_048_576;

export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers });
  res.end(JSON.stringify(body));
}

export const rpcError = (code: number, message: string) => ({
  jsonrpc: '2.0',
  error: { code, message },
  id: null,
});

/** 401 with the pointer to the protected-resource metadata (RFC 9728), so OAuth-speaking clients can look. */
const unauthorized = (urls: ResourceUrls, res: ServerResponse, sent: boolean) =>
  json(
    res,
    401,
    rpcError(-32001, 'A gateway-bot token is required: mint one with `/gateway mcp token` in Slack.'),
    {
      'www-authenticate': unauthorizedChallenge(urls, sent),
    },
  );

export interface Admitted {
  token: BearerIdentity;
  urls: ResourceUrls;
}

/** The request's token and URLs when its Host, method, token and person pass; else answered, undefined. */
export async function authenticate(
  services: CoreServices,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<Admitted | undefined> {
  const refused = rebindingRefusal(req, services.config.mcp.allowedHosts);
  if (refused) return void json(res, 403, rpcError(-32000, `Forbidden: ${refused}.`));
  // A Host with more than a name and a port never names this server's URLs.
  const urls = resourceUrls(services, req);
  if (!urls)
    return void json(res, 400, rpcError(-32000, 'Bad request: the Host header is not a host name and port.'));
  if (req.method !== 'POST')
    return void json(res, 405, rpcError(-32000, 'Method not allowed: this server is stateless, POST only.'), {
      allow: 'POST',
    });
  const secret = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
  // A static `gwb_` token or an OAuth access token for this very resource (tokens/verify-bearer.ts).
  const token = secret ? await services.tokens.verifyBearer(secret, urls.resource) : undefined;
  if (!token) return void unauthorized(urls, res, Boolean(secret));
  try {
    // The person, as now: a guest, someone deactivated or another workspace's person is refused.
    await services.access.requirePerson(token.user);
    if (token.team !== (await services.access.homeTeam())) return void unauthorized(urls, res, true);
  } catch (error) {
    if (error instanceof AccessError) return void json(res, 403, rpcError(-32000, error.title));
    throw error;
  }
  return { token, urls };
}

/** The request's one JSON-RPC message when it parses, fits the rate and the token's scope; else answered. */
export async function admitMessage(
  services: CoreServices,
  req: IncomingMessage,
  res: ServerResponse,
  { token, urls }: Admitted,
): Promise<{ body: unknown } | undefined> {
  let body: unknown;
  try {
    body = JSON.parse(await readBody(req, MAX_BODY_BYTES));
  } catch (error) {
    if (error instanceof BodyTooLarge)
      return void json(res, 413, rpcError(-32000, 'Request body too large.'));
    return void json(res, 400, rpcError(-32700, 'Parse error: the body is not JSON.'));
  }
  if (isBatch(body)) {
    services.metrics.mcpRefused.inc({ reason: 'batch' });
    return void json(
      res,
      400,
      rpcError(-32600, 'Batches are not supported: send one JSON-RPC message a request.'),
    );
  }
  // Every message counts, per token and per person: a list or an initialize as much as a tool call.
  const taken = await takeMessage(
    services.redis,
    services.config.redis.prefix,
    token,
    services.config.mcp.rate,
  );
  if (!taken.ok) {
    services.metrics.mcpRefused.inc({ reason: 'rate' });
    return void json(res, 429, rpcError(-32000, `Too many requests for this ${taken.who}; wait and retry.`), {
      'retry-after': String(taken.retryAfterSec),
    });
  }
  // A read-only token calling a tool that acts: the spec's scope step-up, before anything runs.
  const stepUp = scopeStepUp(body, token.scope, urls, Boolean(services.tokens.signIn));
  if (stepUp)
    return void json(
      res,
      403,
      { ...rpcError(-32003, 'Insufficient scope: this tool acts.'), id: stepUp.id },
      { 'www-authenticate': stepUp.challenge },
    );
  return { body };
}
