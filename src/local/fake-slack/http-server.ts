import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { chatMethods } from './chat-methods.js';
import type { ResponsePayload } from './fake-types.js';
import { fileMethods, handleUpload, unknownSlackFiles } from './file-methods.js';
import { functionMethods, functionRunToken } from './function-methods.js';
import { infoMethods } from './info-methods.js';
import { failValidation, type MethodContext, type MethodHandler } from './method-context.js';
import { decodeArgs } from './normalize.js';
import type { OpenId } from './openid.js';
import { recordResponse } from './slack-responses.js';
import type { SocketModeHub } from './socket-mode.js';
import { viewMethods } from './view-methods.js';

const METHODS: Record<string, MethodHandler> = {
  ...infoMethods,
  ...chatMethods,
  ...viewMethods,
  ...fileMethods,
  ...functionMethods,
};
const RESPONSE_URL_USES = 5;

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Form bodies (web-api's default), JSON bodies, or a form with a JSON `payload` field. */
function parseBody(body: string, contentType: string): Record<string, unknown> {
  if (!body) return {};
  if (contentType.includes('application/json')) {
    try {
      const parsed: unknown = JSON.parse(body);
      return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
    } catch {
      return {};
    }
  }
  const form = Object.fromEntries(new URLSearchParams(body));
  if (typeof form.payload === 'string') return parseBody(form.payload, 'application/json');
  return form;
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
}

function bearer(req: IncomingMessage): string | undefined {
  const match = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '');
  return match?.[1];
}

async function handleApi(
  ctx: MethodContext,
  botToken: string,
  socketMode: SocketModeHub,
  openId: OpenId,
  method: string,
  req: IncomingMessage,
  res: ServerResponse,
) {
  const url = new URL(req.url ?? '/', ctx.origin);
  const raw = {
    ...Object.fromEntries(url.searchParams),
    ...parseBody(await readBody(req), req.headers['content-type'] ?? ''),
  };
  const token = bearer(req) ?? (typeof raw.token === 'string' ? raw.token : undefined);
  delete raw.token;
  const args = decodeArgs(raw);
  const record = (ok: boolean, error?: string) =>
    ctx.state.record({ method, args, at: Date.now(), ok, ...(error ? { error } : {}) });
  if (method === 'apps.connections.open') {
    // The one method that takes the app-level token instead of the bot token.
    const opened = socketMode.openConnection(token);
    record(opened.ok, opened.ok ? undefined : opened.error);
    return sendJson(res, 200, opened);
  }
  // Sign in with Slack: the app's client id and secret, or the person's own token, not the bot token.
  if (method === 'openid.connect.token' || method === 'openid.connect.userInfo') {
    const result =
      method === 'openid.connect.token' ? await openId.token(args) : openId.userInfo(bearer(req));
    record(result.ok, result.ok ? undefined : result.error);
    return sendJson(res, 200, result);
  }
  const handler = METHODS[method];
  if (!handler) {
    record(false, 'unknown_method');
    return sendJson(res, 200, { ok: false, error: 'unknown_method' });
  }
  // A step's completion takes that run's own token (its event's bot_access_token), as Slack's does.
  const expected = method.startsWith('functions.') ? functionRunToken(ctx, args) : botToken;
  if (!token || token !== expected) {
    const error = token ? 'invalid_auth' : 'not_authed';
    record(false, error);
    return sendJson(res, 200, { ok: false, error });
  }
  const outage = ctx.state.outages.get(method);
  if (outage) {
    record(false, `outage_${outage}`);
    // 'hang': the request is left open (close() ends it), as a Slack that accepts and never answers.
    if (outage === 'error') sendJson(res, 503, { ok: false, error: 'service_unavailable' });
    return;
  }
  const limit = ctx.state.rateLimits.get(method);
  const paced =
    method === 'chat.postMessage' && typeof args.channel === 'string'
      ? ctx.state.pace?.take(args.channel)
      : undefined;
  if ((limit && limit.remaining > 0) || paced !== undefined) {
    if (limit && limit.remaining > 0) limit.remaining -= 1;
    record(false, 'ratelimited');
    return sendJson(
      res,
      429,
      { ok: false, error: 'ratelimited' },
      { 'retry-after': String(paced ?? limit?.retryAfterSec ?? 1) },
    );
  }
  // An image block may name an uploaded file: one the stand-in never received is refused, as Slack refuses it.
  const missingFiles = method.startsWith('chat.') ? unknownSlackFiles(ctx, args.blocks) : [];
  const result = missingFiles.length ? failValidation('invalid_blocks', missingFiles) : handler(ctx, args);
  record(result.ok, result.ok ? undefined : result.error);
  sendJson(res, 200, result);
}

/** Slack answers a dead or used-up response_url with 404; Bolt's respond() then throws. */
async function handleResponseUrl(ctx: MethodContext, id: string, req: IncomingMessage, res: ServerResponse) {
  const payload = parseBody(await readBody(req), req.headers['content-type'] ?? '') as ResponsePayload;
  const entry = ctx.state.responseUrls.get(id);
  const deny = entry
    ? Date.now() > entry.expiresAt
      ? 'expired_url'
      : entry.uses >= RESPONSE_URL_USES
        ? 'used_url'
        : undefined
    : 'no_service';
  const args = { ...payload } as Record<string, unknown>;
  if (deny || !entry) {
    ctx.state.record({
      method: 'response_url',
      args,
      at: Date.now(),
      ok: false,
      error: deny,
      responseUrl: id,
    });
    return sendJson(res, 404, { ok: false, error: deny });
  }
  entry.uses += 1;
  const outcome = recordResponse(ctx, entry, payload, 'response_url');
  ctx.state.record({
    method: 'response_url',
    args,
    at: Date.now(),
    ok: outcome.ok,
    error: outcome.error,
    responseUrl: id,
  });
  sendJson(res, outcome.ok ? 200 : 400, outcome);
}

export function createFakeSlackServer(
  ctx: MethodContext,
  botToken: string,
  socketMode: SocketModeHub,
  openId: OpenId,
): Server {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const api = /^\/api\/([A-Za-z0-9_.]+)$/.exec(path);
    const responseUrl = /^\/response\/([A-Za-z0-9_-]+)$/.exec(path);
    const upload = /^\/upload\/([A-Za-z0-9]+)$/.exec(path);
    let work: Promise<void> | undefined;
    if (path.startsWith('/openid/connect/'))
      work = readBody(req)
        .then((body) => openId.route(req, res, body))
        .then((served) => {
          if (!served) sendJson(res, 404, { ok: false, error: 'not_found' });
        });
    else if (api?.[1]) work = handleApi(ctx, botToken, socketMode, openId, api[1], req, res);
    else if (upload?.[1]) work = handleUpload(ctx, upload[1], req, res);
    else if (responseUrl?.[1] && req.method === 'POST')
      work = handleResponseUrl(ctx, responseUrl[1], req, res);
    if (!work) return sendJson(res, 404, { ok: false, error: 'not_found' });
    work.catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { ok: false, error: 'fatal_error', detail: String(error) });
    });
  });
  // Socket Mode's WebSocket shares the port, as the URL apps.connections.open returns says.
  server.on('upgrade', (req, socket, head) => socketMode.handleUpgrade(req, socket, head));
  return server;
}
