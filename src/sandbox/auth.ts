import { SANDBOX_KEYS } from '../gateway/spec.js';
import { isSyntheticId, SAMPLE_CLIENTS } from './clients.js';

/** docs/gateway-api.md §5: the sample keys, their scopes and the clients linked to them. */

export type Scope = 'read' | 'write';

interface KeyGrant {
  scopes: readonly Scope[];
  clients: readonly string[];
  /** Reaches the synthetic clients too (clients.ts): the keys that reach every sample client. */
  synthetic?: boolean;
  revoked?: boolean;
}

const ALL_CLIENTS = SAMPLE_CLIENTS.map((c) => c.id);

const GRANTS: Readonly<Record<string, KeyGrant>> = {
  [SANDBOX_KEYS.full]: { scopes: ['read', 'write'], clients: ALL_CLIENTS, synthetic: true },
  [SANDBOX_KEYS.readonly]: { scopes: ['read'], clients: ALL_CLIENTS, synthetic: true },
  [SANDBOX_KEYS.unlinked]: { scopes: ['read', 'write'], clients: [] },
  [SANDBOX_KEYS.revoked]: { scopes: [], clients: [], revoked: true },
};

/** The four sample keys with what they open, for the CLI's banner. */
export const SAMPLE_KEY_TABLE = Object.entries(GRANTS).map(([key, grant]) => ({
  key,
  scopes: grant.revoked ? 'revoked (401)' : grant.scopes.join(', '),
  clients: grant.clients.length ? 'every sample client' : grant.revoked ? '-' : 'none (403 for each)',
}));

export interface Denial {
  status: 401 | 403;
  error: string;
}

export interface Caller {
  key: string;
  grant: KeyGrant;
}

const CREATE_KEY = 'Create a new key in the agency automations area (it also shows the gateway address).';

/** Reads the key from `Authorization: Bearer` or `X-API-Key`. */
export function keyFrom(headers: Record<string, string | string[] | undefined>): string | undefined {
  const auth = headers.authorization;
  if (typeof auth === 'string') {
    const match = /^Bearer\s+(.+)$/i.exec(auth.trim());
    if (match?.[1]) return match[1].trim();
  }
  const apiKey = headers['x-api-key'];
  if (typeof apiKey === 'string' && apiKey.trim()) return apiKey.trim();
  return undefined;
}

/** A key as it may appear in the request log: sample keys verbatim, anything else masked. */
export function loggableKey(key: string | undefined): string | undefined {
  if (key === undefined) return undefined;
  return key in GRANTS ? key : 'unknown';
}

/** 401 for a missing, unknown or revoked key; 403 for a missing scope. */
export function authenticate(key: string | undefined, scope: Scope): Caller | Denial {
  if (key === undefined) {
    return {
      status: 401,
      error: `Missing API key: send it as "Authorization: Bearer <API_KEY>". ${CREATE_KEY}`,
    };
  }
  const grant = GRANTS[key];
  if (!grant) {
    return {
      status: 401,
      error: `Invalid API key: the key is missing, invalid, revoked or expired. ${CREATE_KEY}`,
    };
  }
  if (grant.revoked) return { status: 401, error: `This API key has been revoked. ${CREATE_KEY}` };
  if (!grant.scopes.includes(scope)) {
    const method = scope === 'read' ? 'GET' : 'POST';
    return {
      status: 403,
      error: `This API key lacks the "${scope}" scope that ${method} requests need. Regenerate the key with the ${scope} scope or re-check its scopes in the agency automations area.`,
    };
  }
  return { key, grant };
}

/** 403 when the client is not linked to the key's agency (an unknown client looks the same from outside). */
export function clientDenial(caller: Caller, clientId: string): Denial | undefined {
  if (caller.grant.clients.includes(clientId)) return undefined;
  if (caller.grant.synthetic && isSyntheticId(clientId)) return undefined;
  return {
    status: 403,
    error: `Client "${clientId}" is not linked to the agency that owns this API key. A key created before the client was linked may lack access: regenerate the key or re-check its scopes.`,
  };
}

export function isDenial(value: Caller | Denial): value is Denial {
  return 'status' in value;
}
