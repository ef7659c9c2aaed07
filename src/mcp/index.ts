import type { IncomingMessage, ServerResponse } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler } from '@modelcontextprotocol/server';
import type { CustomRoute } from '@slack/bolt';
import { callScope, inCall } from '../assistant-calls.js';
import type { CoreServices } from '../services.js';
import { admitMessage, authenticate, json, MAX_BODY_BYTES, rpcError } from './admission.js';
import type { Caller } from './context.js';
import { AssistantLane } from './lane.js';
import { MCP_PATH, METADATA_PATH, metadataRoute } from './resource-metadata.js';
import { buildTools } from './tools.js';

/**
 * mcp/ is a surface: the assistant-tool server of docs/gateway-api.md §4.5 at `POST /mcp` (Streamable HTTP,
 * stateless: any web process answers any request), for bearer tokens minted in Slack. A call acts as the token's
 * person under the same access policy as in Slack.
 */

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

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const admitted = await authenticate(services, req, res);
    if (!admitted) return;
    const message = await admitMessage(services, req, res, admitted);
    if (!message) return;
    const { token } = admitted;
    const caller: Caller = { user: token.user, scope: token.scope, tokenId: token.tokenId };
    const authed = Object.assign(req, {
      auth: { token: token.tokenId, clientId: token.tokenId, scopes: [token.scope], extra: { caller } },
    });
    await inCall(
      callScope(caller, (user) => services.reach.of(user)),
      () => node(authed, res, message.body),
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
