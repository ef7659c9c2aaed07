import type { AssistantTokenStore, TokenScope } from '../store/index.js';
import { type GrantIndex, publicGrantId } from './grants.js';
import type { OAuthStore } from './oauth-store.js';

/**
 * Who a bearer token on `/mcp` is: a static `gwb_` token minted in Slack, or an access token the authorization
 * server issued after a person signed in. Either is read from Redis at every call, so a revoked one is refused by
 * every process at its next call. An access token counts only for the resource it was issued for (this
 * server's `/mcp`, RFC 8707), while its grant stands and before it expires.
 */

export interface BearerIdentity {
  user: string;
  team: string;
  /** `read`: the read tools only; `write`: reads and actions (`gateway:act`). */
  scope: TokenScope;
  /** What rate limits and logs name: a static token's id, or the grant's public id. */
  tokenId: string;
  /** The authorization server's grant, for an OAuth access token. */
  grantId?: string;
}

/** The scopes a person grants an assistant: reading, and acting (which includes reading). */
export const OAUTH_SCOPES = { read: 'gateway:read', act: 'gateway:act' } as const;

/** The tool scope of an OAuth scope string; undefined when it holds neither of ours. */
export function toolScope(scope: string | undefined): TokenScope | undefined {
  const scopes = new Set((scope ?? '').split(' '));
  if (scopes.has(OAUTH_SCOPES.act)) return 'write';
  if (scopes.has(OAUTH_SCOPES.read)) return 'read';
  return undefined;
}

/** The canonical form of a resource indicator, for comparison (no fragment, no trailing slash). */
export function sameResource(a: unknown, b: string): boolean {
  const canonical = (value: string) => {
    try {
      const url = new URL(value);
      url.hash = '';
      return url.href.replace(/\/+$/, '');
    } catch {
      return undefined;
    }
  };
  const values = Array.isArray(a) ? a : [a];
  const wanted = canonical(b);
  return values.length === 1 && typeof values[0] === 'string' && canonical(values[0]) === wanted;
}

const OPAQUE = /^[A-Za-z0-9_-]{20,128}$/;

export class BearerVerifier {
  constructor(
    private readonly tokens: AssistantTokenStore,
    private readonly store: OAuthStore,
    private readonly grants: GrantIndex,
  ) {}

  /** The identity of `secret` as a bearer token for `resource` (this server's `/mcp` URL), or undefined. */
  async verify(secret: string, resource: string): Promise<BearerIdentity | undefined> {
    if (secret.startsWith('gwb_')) {
      const token = await this.tokens.verify(secret);
      return token && { user: token.user, team: token.team, scope: token.scope, tokenId: token.id };
    }
    if (!OPAQUE.test(secret)) return undefined;
    const token = await this.store.read('AccessToken', secret);
    const now = Date.now() / 1_000;
    if (!token || token.jti !== secret || token.kind !== 'AccessToken' || !((token.exp ?? 0) > now))
      return undefined;
    if (!sameResource(token.aud, resource)) return undefined;
    const scope = toolScope(token.scope);
    const grantId = token.grantId;
    const [team, user] = String(token.accountId ?? '').split(':');
    if (!scope || !grantId || !team || !user) return undefined;
    const grant = await this.store.read('Grant', grantId);
    if (!grant || !((grant.exp ?? 0) > now)) return undefined;
    void this.grants.touch(grantId).catch(() => {});
    return { user, team, scope, tokenId: publicGrantId(grantId), grantId };
  }
}
