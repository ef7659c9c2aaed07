import type { IncomingMessage, ServerResponse } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import type { CustomRoute } from '@slack/bolt';
import { AccessError } from '../access/access-error.js';
import type { Reach } from '../access/client-reach.js';
import type { CoreServices } from '../services.js';
import { registerActionTools } from './action-tools.js';
import { registerChartTool } from './chart-tool.js';
import type { Caller, ToolContext } from './context.js';
import { CursorSigner } from './cursor.js';
import { BodyTooLarge, readBody, rebindingRefusal, takeCalls, toolCalls } from './guards.js';
import { registerReadTools } from './read-tools.js';
import {
  MCP_PATH,
  METADATA_PATH,
  metadataRoute,
  type ResourceUrls,
  resourceUrls,
  unauthorizedChallenge,
} from './resource-metadata.js';
import { scopeStepUp } from './scope-step-up.js';

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

export function mcpRoutes(services: CoreServices): CustomRoute[] {
  const { config, logger } = services;
  const log = logger.child({ part: 'mcp' });
  const cursors = new CursorSigner(services.redis, config.redis.prefix);

  const handler = createMcpHandler(
    (request) => {
      const extra = request.authInfo?.extra as { caller?: Caller } | undefined;
      const caller = extra?.caller;
      if (!caller) throw new Error('an MCP request reached the tools without its caller');
      let reach: Promise<Reach> | undefined;
      const ctx: ToolContext = {
        services,
        caller,
        cursors,
        reach: () => {
          reach ??= services.reach.of(caller.user);
          reach.catch(() => {
            reach = undefined;
          });
          return reach;
        },
      };
      const server = new McpServer({ name: 'gateway-bot', version: '0.1.0' });
      registerReadTools(server, ctx);
      registerChartTool(server, ctx);
      registerActionTools(server, ctx);
      return server;
    },
    {
      legacy: 'stateless',
      maxRequestBodySize: MAX_BODY_BYTES,
      onerror: (error) => log.debug('mcp request refused by the protocol layer', error),
    },
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
    const taken = await takeCalls(
      services.redis,
      config.redis.prefix,
      token.tokenId,
      toolCalls(body),
      config.mcp.rate,
    );
    if (!taken.ok)
      return json(res, 429, rpcError(-32000, 'Too many tool calls for this token; wait and retry.'), {
        'retry-after': String(taken.retryAfterSec),
      });
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
    await node(authed, res, body);
  }

  const metadata = metadataRoute(services);
  const safe = (req: IncomingMessage, res: ServerResponse) =>
    void serve(req, res).catch((error: unknown) => {
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
