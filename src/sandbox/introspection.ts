import type { IncomingMessage, ServerResponse } from 'node:http';
import { SandboxInputError } from './faults.js';
import { readBody, sendJson } from './http-util.js';
import type { FailNextMatch, Sandbox, SandboxFault } from './sandbox-types.js';

/**
 * `/__sandbox/*`: what the sandbox saw and did, and its knobs, over HTTP for tests and people driving it from
 * another process. Outside the gateway address, so no key and no faults.
 */

async function jsonBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const { text } = await readBody(req);
  if (!text.trim()) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new SandboxInputError('The body must be JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new SandboxInputError('The body must be a JSON object');
  }
  return value as Record<string, unknown>;
}

function optionalText(body: Record<string, unknown>, name: string): string | undefined {
  const value = body[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new SandboxInputError(`${name} must be a string`);
  return value;
}

export async function handleIntrospection(
  sandbox: Sandbox & { knobs(): unknown },
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  const route = `${req.method} ${url.pathname.replace(/\/$/, '')}`;
  try {
    switch (route) {
      case 'GET /__sandbox/counts':
        return sendJson(res, 200, {
          counts: sandbox.counts(),
          requests: sandbox.requests(),
          readsInFlight: sandbox.readsInFlight(),
        });
      case 'GET /__sandbox/knobs':
        return sendJson(res, 200, { knobs: sandbox.knobs() });
      case 'GET /__sandbox/records': {
        const clientId = url.searchParams.get('client_id') ?? '';
        const resource = url.searchParams.get('resource') ?? '';
        return sendJson(res, 200, { data: sandbox.records(clientId, resource) });
      }
      case 'POST /__sandbox/knobs':
        sandbox.setKnobs(await jsonBody(req));
        return sendJson(res, 200, { knobs: sandbox.knobs() });
      case 'POST /__sandbox/fail-next': {
        const body = await jsonBody(req);
        const method = optionalText(body, 'method');
        if (method !== undefined && method !== 'GET' && method !== 'POST') {
          throw new SandboxInputError('method must be GET or POST');
        }
        const match: FailNextMatch = {
          method,
          action: optionalText(body, 'action'),
          resource: optionalText(body, 'resource'),
          count: body.count === undefined ? undefined : Number(body.count),
        };
        sandbox.failNext(body.fault as SandboxFault, match);
        return sendJson(res, 200, { queued: body.fault, ...match });
      }
      case 'POST /__sandbox/advance': {
        const clientId = optionalText(await jsonBody(req), 'client_id');
        const advanced = sandbox.advance(clientId);
        if (clientId && !advanced.length) throw new SandboxInputError(`No sample client ${clientId}`);
        return sendJson(res, 200, { advanced });
      }
      case 'POST /__sandbox/reset':
        sandbox.reset();
        return sendJson(res, 200, { ok: true });
      default:
        return sendJson(res, 404, {
          error: `No sandbox endpoint ${route}. Try GET /__sandbox/counts, POST /__sandbox/knobs, POST /__sandbox/fail-next, POST /__sandbox/advance, POST /__sandbox/reset`,
        });
    }
  } catch (error) {
    if (error instanceof SandboxInputError) return sendJson(res, 400, { error: error.message });
    throw error;
  }
}
