import { quoted } from '../http/public-url.js';
import type { TokenScope } from '../store/index.js';
import { ACTING_TOOLS } from './action-tools.js';
import { type ResourceUrls, scopeNames } from './resource-metadata.js';

/**
 * The scope step-up of the MCP authorization spec (2025-11-25, "Scope Challenge Handling"): a read-only token
 * that calls a tool that acts is answered 403 with `WWW-Authenticate: Bearer error="insufficient_scope",
 * scope="…"` before the tool runs, so a client that signed in can ask its person for the acting scope and
 * retry, instead of reading a tool error it cannot act on.
 */

export interface StepUp {
  challenge: string;
  /** The JSON-RPC id of the refused call. */
  id: string | number | null;
}

interface Message {
  method?: unknown;
  id?: unknown;
  params?: { name?: unknown };
}

/** The challenge for this body when its token may not make the call, else undefined. */
export function scopeStepUp(
  body: unknown,
  scope: TokenScope,
  urls: ResourceUrls,
  signIn: boolean,
): StepUp | undefined {
  if (scope !== 'read') return undefined;
  const messages = (Array.isArray(body) ? body : [body]) as Message[];
  const acting = messages.find(
    (m) =>
      m && m.method === 'tools/call' && typeof m.params?.name === 'string' && ACTING_TOOLS.has(m.params.name),
  );
  if (!acting) return undefined;
  const description = signIn
    ? 'This tool acts: sign in again and allow acting.'
    : 'This tool acts: mint a token without read in Slack (/gateway mcp token).';
  const challenge = [
    'Bearer error="insufficient_scope"',
    `scope=${quoted(scopeNames(signIn).act)}`,
    `resource_metadata=${quoted(urls.metadata)}`,
    `error_description=${quoted(description)}`,
  ].join(', ');
  const id = typeof acting.id === 'string' || typeof acting.id === 'number' ? acting.id : null;
  return { challenge, id };
}
