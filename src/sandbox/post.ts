import { runAction } from './actions.js';
import { type Caller, clientDenial } from './auth.js';
import { findClient } from './clients.js';
import { findAction, SANDBOX_ACTIONS } from './discovery.js';
import { errorReply, type Reply } from './reply.js';
import type { SandboxStore } from './sample-store.js';

/**
 * docs/gateway-api.md §4.3: an action. Checks in a fixed order (body, action, client, required fields), then
 * runs it.
 */

export type ParsedBody = { ok: true; value: unknown } | { ok: false; error: string };

export function parseBody(raw: string): ParsedBody {
  try {
    return { ok: true, value: JSON.parse(raw) };
  } catch (error) {
    return {
      ok: false,
      error: `The request body is not valid JSON (${(error as Error).message}). Send Content-Type: application/json with a body such as {"action":"seo_audit","client_id":"<client_id>","url":"https://example.com"}`,
    };
  }
}

function isMissing(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

const UPSTREAM_FAILURE =
  'Upstream generator failed: the AI provider did not return a result. Nothing was created and nothing was billed; try again later.';

export function postReply(
  store: SandboxStore,
  seed: number,
  caller: Caller,
  body: ParsedBody,
  statusError: boolean,
): Reply {
  if (!body.ok) return errorReply(400, body.error);
  const value = body.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return errorReply(
      400,
      'The request body must be a JSON object with "action", "client_id" and the action\'s fields',
    );
  }
  const { action, client_id: clientId, ...fields } = value as Record<string, unknown>;
  const actions = `Available actions: ${SANDBOX_ACTIONS.map((a) => a.action).join(', ')}`;
  if (isMissing(action)) return errorReply(400, `Missing required field "action". ${actions}`);
  const spec = typeof action === 'string' ? findAction(action) : undefined;
  if (!spec) return errorReply(400, `Unknown action "${String(action)}". ${actions}`);
  if (isMissing(clientId) || typeof clientId !== 'string') {
    return errorReply(400, `Missing required field "client_id": every action runs against one client`);
  }
  const denial = clientDenial(caller, clientId);
  const client = findClient(clientId);
  if (denial || !client) return errorReply(403, denial?.error ?? `Client "${clientId}" is not linked`);
  const missing = spec.required.filter((name) => isMissing(fields[name]));
  if (missing.length) {
    const names = missing.map((name) => `"${name}"`).join(', ');
    return errorReply(
      400,
      `Missing required field${missing.length > 1 ? 's' : ''} ${names} for action "${spec.action}" (required: ${spec.required.join(', ')})`,
    );
  }
  const head = { action: spec.action, client_id: clientId };
  if (statusError) {
    return {
      status: 200,
      body: { ...head, status: 'error', status_code: 502, error: UPSTREAM_FAILURE, data: {} },
    };
  }
  const outcome = runAction(store, seed, client, spec.action, fields);
  if (!outcome.ok) {
    return {
      status: 200,
      body: { ...head, status: 'error', status_code: outcome.statusCode, error: outcome.error, data: {} },
    };
  }
  return { status: 200, body: { ...head, status: 'success', status_code: 200, data: outcome.data } };
}
