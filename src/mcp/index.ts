import type { IncomingMessage, ServerResponse } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler } from '@modelcontextprotocol/server';
import type { CustomRoute } from '@slack/bolt';
import { AccessError } from '../access/access-error.js';
import { callScope, inCall } from '../assistant-calls.js';
import type { CoreServices } from '../services.js';
import type { Caller } from './context.js';
import { BodyTooLarge, readBody, rebindingRefusal } from './guards.js';
import { AssistantLane } from './lane.js';
import { isBatch, takeMessage } from './rate.js';
import {
  MCP_PATH,
  METADATA_PATH,
  metadataRoute,
  type ResourceUrls,
  resourceUrls,
  unauthorizedChallenge,
} from './resource-metadata.js';
import { scopeStepUp } from './scope-step-up.js';
import { buildTools } from './tools.js';

/**
 * mcp/ is a surface: the assistant-tool server of docs/gateway-api.md §4.5 at `POST /mcp` (Streamable HTTP,
 * stateless: any web process answers any request), for bearer tokens minted in Slack. A call acts as the token's
 * person under the same access policy as in Slack.
 */

/** A tool call's arguments are small; an article's HTML for an email is the largest. */
const MAX_BODY_BYTES = 1_048_576;

function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers });
  res.end(JSON.stringify(body));
}

const rpcError = (code: number, message: string) => ({ jsonrpc: '2.0', error: { code, message }, id: null });

/** Assistant requests running at once in one process (the rest wait in the lane, up to MCP_MAX_IN_FLIGHT). */
const RUNNING = 4;
/** How long a request may wait in the lane before it is answered 503. */
const LANE_WAIT_MS = 10_000;

const busy = (res: ServerResponse) =>
  json(res, 503, rpcError(-32000, 'The assistant tools are busy; retry in a moment.'), {
    'retry-after': '1',
  });

/**
 * `slackBusy`: whether a Slack answer is in progress in this process (the web role); assistant work then waits
 * behind it.
 */
export function mcpRoutes(services: CoreServices, slackBusy?: () => boolean): CustomRoute[] {
  const { config, logger } = services;
  const log = logger.child({ part: 'mcp' });

  // Every tool built once; each request gets a bare server over them (tool-table.ts).
  const tools = buildTools(services);
  const handler = createMcpHandler(() => tools.server({ name: 'gateway-bot', version: '0.1.0' }), {
    legacy: 'stateless',
    maxRequestBodySize: MAX_BODY_BYTES,
    onerror: (error) => log.debug('mcp request refused by the protocol layer', error),
  });
  const lane = new AssistantLane(
    { inFlight: config.mcp.maxInFlight, running: RUNNING, maxWaitMs: LANE_WAIT_MS },
    slackBusy,
  );
  const node = toNodeHandler(handler, {
    maxRequestBodySize: MAX_BODY_BYTES,
    onerror: (error) => log.warn('mcp handler failed', error),
  });

  /** 401 with the pointer to the protected-resource metadata (RFC 9728), so OAuth-speaking clients can look. */
  const unauthorized = (urls: ResourceUrls, res: ServerResponse, sent: boolean) =>
    json(
      res,
      401,
      rpcError(-32001, 'A gateway-bot token is required: mint one with `/gateway mcp token` in Slack.'),
      { 'www-authenticate': unauthorizedChallenge(urls, sent) },
    );

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const refused = rebindingRefusal(req, config.mcp.allowedHosts);
    if (refused) return json(res, 403, rpcError(-32000, `Forbidden: ${refused}.`));
    // A Host with more than a name and a port never names this server's URLs.
    const urls = resourceUrls(services, req);
    if (!urls)
      return json(res, 400, rpcError(-32000, 'Bad request: the Host header is not a host name and port.'));
    if (req.method !== 'POST')
      return json(res, 405, rpcError(-32000, 'Method not allowed: this server is stateless, POST only.'), {
        allow: 'POST',
      });
    const secret = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    // A static `gwb_` token or an OAuth access token for this very resource (tokens/verify-bearer.ts).
    const token = secret ? await services.tokens.verifyBearer(secret, urls.resource) : undefined;
    if (!token) return unauthorized(urls, res, Boolean(secret));
    try {
      // The person, as now: a guest, someone deactivated or another workspace's person is refused.
      await services.access.requirePerson(token.user);
      if (token.team !== (await services.access.homeTeam())) return unauthorized(urls, res, true);
    } catch (error) {
      if (error instanceof AccessError) return json(res, 403, rpcError(-32000, error.title));
      throw error;
    }
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req, MAX_BODY_BYTES));
    } catch (error) {
      if (error instanceof BodyTooLarge) return json(res, 413, rpcError(-32000, 'Request body too large.'));
      return json(res, 400, rpcError(-32700, 'Parse error: the body is not JSON.'));
    }
    if (isBatch(body)) {
      services.metrics.mcpRefused.inc({ reason: 'batch' });
      return json(
        res,
        400,
        rpcError(-32600, 'Batches are not supported: send one JSON-RPC message a request.'),
      );
    }
    // Every message counts, per token and per person: a list or an initialize as much as a tool call.
    const taken = await takeMessage(services.redis, config.redis.prefix, token, config.mcp.rate);
    if (!taken.ok) {
      services.metrics.mcpRefused.inc({ reason: 'rate' });
      return json(res, 429, rpcError(-32000, `Too many requests for this ${taken.who}; wait and retry.`), {
        'retry-after': String(taken.retryAfterSec),
      });
    }
    // A read-only token calling a tool that acts: the spec's scope step-up, before anything runs.
    const stepUp = scopeStepUp(body, token.scope, urls, Boolean(services.tokens.signIn));
    if (stepUp)
      return json(
        res,
        403,
        { ...rpcError(-32003, 'Insufficient scope: this tool acts.'), id: stepUp.id },
        {
          'www-authenticate': stepUp.challenge,
        },
      );
    const caller: Caller = { user: token.user, scope: token.scope, tokenId: token.tokenId };
    const authed = Object.assign(req, {
      auth: { token: token.tokenId, clientId: token.tokenId, scopes: [token.scope], extra: { caller } },
    });
    await inCall(
      callScope(caller, (user) => services.reach.of(user)),
      () => node(authed, res, body),
    );
  }

  /** Every request in the lane, the checks above included; a full lane or a long wait is answered 503. */
  async function admitted(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const outcome = await lane.run(() => serve(req, res));
    if (!outcome.ran) {
      services.metrics.mcpRefused.inc({ reason: 'busy' });
      busy(res);
    }
  }

  const metadata = metadataRoute(services);
  const safe = (req: IncomingMessage, res: ServerResponse) =>
    void admitted(req, res).catch((error: unknown) => {
      log.error('mcp request failed', error);
      if (!res.headersSent) json(res, 500, rpcError(-32603, 'Internal error.'));
      else res.end();
    });
  return [
    { path: MCP_PATH, method: ['POST', 'GET', 'DELETE'], handler: safe },
    { path: METADATA_PATH, method: ['GET', 'OPTIONS'], handler: metadata },
    { path: `${METADATA_PATH}${MCP_PATH}`, method: ['GET', 'OPTIONS'], handler: metadata },
  ];
}
