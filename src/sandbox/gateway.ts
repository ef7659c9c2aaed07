import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Row } from '../gateway/types.js';
import { authenticate, isDenial, keyFrom, loggableKey } from './auth.js';
import { discoveryBody, findAction } from './discovery.js';
import type { FaultPlan, HostileRead } from './faults.js';
import { dripJson, HOSTILE_PAYLOAD, mapRowStrings } from './hostile.js';
import { readBody, sendJson } from './http-util.js';
import { type ParsedBody, parseBody, postReply } from './post.js';
import { readReply } from './read.js';
import { errorReply, type Reply } from './reply.js';
import type { SandboxStore } from './sample-store.js';
import type { SandboxFault, SandboxRequestLog } from './sandbox-types.js';

/**
 * The gateway address: method check, request log, fault decision, latency, then the read or the action, and
 * last the faults that strike after the work was done (the outcomes a client cannot tell from "nothing ran").
 */

export interface GatewayDeps {
  store: SandboxStore;
  faults: FaultPlan;
  log: SandboxRequestLog[];
  /** Reads being answered now and the most at once (a fleet's cap on reads in flight is checked here). */
  reads: { now: number; max: number };
  seed: number;
  sleep(ms: number): Promise<void>;
  nextRequestId(): string;
}

const FAULT_500 =
  'Internal server error: the gateway failed before handling the request. Retry with backoff; if it persists, report it with the time and this message.';
const FAULT_500_AFTER =
  'Internal server error: upstream failure while confirming the result. The action may have run; check before retrying.';

function describe(
  method: string,
  params: URLSearchParams,
  body: ParsedBody | undefined,
): Partial<SandboxRequestLog> {
  if (method === 'GET') {
    const fields: Record<string, unknown> = {};
    for (const [name, value] of params) if (name !== 'resource' && name !== 'client_id') fields[name] = value;
    return {
      resource: params.get('resource') ?? undefined,
      clientId: params.get('client_id') ?? undefined,
      ...(Object.keys(fields).length ? { fields } : {}),
    };
  }
  if (!body?.ok || typeof body.value !== 'object' || body.value === null) return {};
  const { action, client_id: clientId, ...fields } = body.value as Row;
  const name = typeof action === 'string' ? action : undefined;
  return {
    action: name,
    resource: name ? findAction(name)?.recordResource : undefined,
    clientId: typeof clientId === 'string' ? clientId : undefined,
    fields,
  };
}

function work(
  deps: GatewayDeps,
  req: IncomingMessage,
  url: URL,
  body: ParsedBody | undefined,
  fault: SandboxFault | undefined,
  hostile: HostileRead | undefined,
): Reply {
  const method = req.method === 'POST' ? 'POST' : 'GET';
  const caller = authenticate(keyFrom(req.headers), method === 'GET' ? 'read' : 'write');
  if (isDenial(caller)) return errorReply(caller.status, caller.error);
  if (method === 'GET') {
    if ([...url.searchParams.keys()].length === 0) return { status: 200, body: discoveryBody() };
    const reply = readReply(deps.store, caller, url.searchParams, hostile?.endless);
    return hostile ? spoil(reply, hostile, req.headers.authorization) : reply;
  }
  return postReply(
    deps.store,
    deps.seed,
    caller,
    body ?? { ok: true, value: undefined },
    fault === 'status_error',
  );
}

/** A read's rows as a hostile gateway, or a proxy that echoes the request's headers, would send them. */
function spoil(reply: Reply, hostile: HostileRead, authorization: string | undefined): Reply {
  const body = reply.body as { data?: unknown };
  if (reply.status !== 200 || !Array.isArray(body.data)) return reply;
  let data = body.data as Row[];
  if (hostile.hostile) data = mapRowStrings(data, (text) => `${text}${HOSTILE_PAYLOAD}`);
  if (hostile.echoKey)
    data = mapRowStrings(data, (text) => `${text} [authorization: ${authorization ?? ''}]`);
  return { ...reply, body: { ...body, data } };
}

export async function handleGateway(
  deps: GatewayDeps,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  const method = req.method ?? 'GET';
  const requestId = deps.nextRequestId();
  const headers = { 'x-request-id': requestId };
  const entry: SandboxRequestLog = {
    at: new Date().toISOString(),
    method,
    key: loggableKey(keyFrom(req.headers)),
    status: 0,
  };
  deps.log.push(entry);
  const read = method === 'GET' && url.searchParams.has('resource');
  if (read) deps.reads.max = Math.max(deps.reads.max, ++deps.reads.now);
  // A caller that went away before its answer (a client timeout, a process killed mid-request) is logged so.
  res.once('close', () => {
    if (read) deps.reads.now--;
    if (!res.writableFinished) entry.callerGone = true;
  });
  if (method !== 'GET' && method !== 'POST') {
    entry.status = 405;
    req.resume();
    const error = `Method ${method} is not allowed: the gateway answers GET (reads and discovery) and POST (actions) only.`;
    return sendJson(res, 405, { error }, { ...headers, allow: 'GET, POST' });
  }
  let body: ParsedBody | undefined;
  if (method === 'POST') {
    const raw = await readBody(req);
    body = raw.tooLarge ? { ok: false, error: 'The request body is larger than 1 MB' } : parseBody(raw.text);
  }
  Object.assign(entry, describe(method, url.searchParams, body));
  const fault = deps.faults.decide({ method, action: entry.action, resource: entry.resource });
  if (fault) entry.fault = fault;
  const hostile = method === 'GET' ? deps.faults.hostile() : undefined;
  if (hostile?.drip) entry.fault ??= 'drip';
  await deps.sleep(deps.faults.knobs.latencyMs);

  if (fault === 'drop_before_action') return void res.socket?.destroy();
  if (fault === '500') {
    entry.status = 500;
    return sendJson(res, 500, { error: FAULT_500 }, headers);
  }
  const reply = work(deps, req, url, body, fault, hostile);
  if (fault === 'timeout') return; // the socket stays open until the client gives up or the sandbox closes
  if (fault === 'drop_after_action') return void res.socket?.destroy();
  if (fault === '500_after_action') {
    entry.status = 500;
    return sendJson(res, 500, { error: FAULT_500_AFTER }, headers);
  }
  entry.status = reply.status;
  if (fault === 'drip' || hostile?.drip) {
    return dripJson(res, reply.status, reply.body, headers, deps.faults.knobs.dripMs);
  }
  sendJson(res, reply.status, reply.body, headers);
}
