import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from '../redis.js';

/**
 * Assistant-tool tokens (the MCP server's bearer tokens), minted by a person in Slack. A token is shown once and
 * stored only as its SHA-256 hash, bound to the person and their workspace, with an expiry. Every check reads
 * Redis (no copy in a process), so a revoked token is refused by every web process at its next call.
 */

/** What a secret scanner can look for: every token starts with it. */
const TOKEN_PREFIX = 'gwb_';

export type TokenScope = 'read' | 'write';

export interface AssistantToken {
  /** The short public id, for `mcp tokens` and `mcp revoke`; never enough to call with. */
  id: string;
  user: string;
  team: string;
  /** `read`: the read tools only; `write`: reads and actions. */
  scope: TokenScope;
  createdAt: number;
  expiresAt: number;
}

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

export class AssistantTokenStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    /** Told of every token minted or revoked, with its person (their Home tab lists it). */
    private readonly options: { changed?: (user: string) => Promise<void> } = {},
  ) {}

  async #changed(user: string): Promise<void> {
    // The token stands (or is gone): a Home tab left behind is published anew when opened.
    await this.options.changed?.(user).catch(() => {});
  }

  #byHash(hash: string) {
    return `${this.prefix}:mcp:token:${hash}`;
  }
  #byId(id: string) {
    return `${this.prefix}:mcp:token-id:${id}`;
  }
  /** Every token's id, scored by its expiry: the admins' list, and each person's by filtering it. */
  #index() {
    return `${this.prefix}:mcp:tokens`;
  }

  /** A new token: the secret (shown once, never stored) and its record. */
  async mint(input: {
    user: string;
    team: string;
    scope: TokenScope;
    ttlMs: number;
  }): Promise<{ secret: string; token: AssistantToken }> {
    const secret = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    const now = Date.now();
    const token: AssistantToken = {
      id: randomBytes(5).toString('hex'),
      user: input.user,
      team: input.team,
      scope: input.scope,
      createdAt: now,
      expiresAt: now + input.ttlMs,
    };
    const hash = hashOf(secret);
    await this.redis
      .multi()
      .hset(this.#byHash(hash), {
        id: token.id,
        user: token.user,
        team: token.team,
        scope: token.scope,
        createdAt: String(token.createdAt),
        expiresAt: String(token.expiresAt),
      })
      .pexpireat(this.#byHash(hash), token.expiresAt)
      .set(this.#byId(token.id), hash, 'PXAT', token.expiresAt)
      .zadd(this.#index(), token.expiresAt, token.id)
      .exec();
    await this.#changed(token.user);
    return { secret, token };
  }

  /** The token a bearer secret is, when it is one, unexpired and not revoked. */
  async verify(secret: string): Promise<AssistantToken | undefined> {
    if (!secret.startsWith(TOKEN_PREFIX) || secret.length > 200) return undefined;
    const token = parse(await this.redis.hgetall(this.#byHash(hashOf(secret))));
    return token && token.expiresAt > Date.now() ? token : undefined;
  }

  /** Unexpired tokens, newest first: everyone's, or one person's. */
  async list(user?: string): Promise<AssistantToken[]> {
    const now = Date.now();
    await this.redis.zremrangebyscore(this.#index(), '-inf', now);
    const ids = await this.redis.zrange(this.#index(), 0, -1);
    const out: AssistantToken[] = [];
    for (const id of ids) {
      const token = await this.#get(id);
      if (token && (!user || token.user === user)) out.push(token);
    }
    return out.sort((a, b) => b.createdAt - a.createdAt);
  }

  async #get(id: string): Promise<AssistantToken | undefined> {
    if (!/^[0-9a-f]{1,40}$/.test(id)) return undefined;
    const hash = await this.redis.get(this.#byId(id));
    return hash ? parse(await this.redis.hgetall(this.#byHash(hash))) : undefined;
  }

  /**
   * Revokes a token for `by`: their own, or anyone's for an admin (`everyone`). Undefined when there is no such
   * token for them: someone else's is answered as an unknown one, so its id tells nothing. The rule for every
   * surface (the `mcp revoke` command, the Home tab's Revoke).
   */
  async revokeAs(id: string, by: string, everyone: boolean): Promise<AssistantToken | undefined> {
    const token = (await this.list(everyone ? undefined : by)).find((t) => t.id === id);
    return token ? this.revoke(token.id) : undefined;
  }

  /** Revokes a token by its id; the record it was, or undefined when there is none (or it expired). */
  async revoke(id: string): Promise<AssistantToken | undefined> {
    const token = await this.#get(id);
    if (!token) return undefined;
    const hash = await this.redis.get(this.#byId(id));
    await this.redis
      .multi()
      .del(this.#byHash(hash ?? ''))
      .del(this.#byId(id))
      .zrem(this.#index(), id)
      .exec();
    await this.#changed(token.user);
    return token;
  }
}

function parse(h: Record<string, string>): AssistantToken | undefined {
  if (!h.id || !h.user) return undefined;
  return {
    id: h.id,
    user: h.user,
    team: h.team ?? '',
    scope: h.scope === 'read' ? 'read' : 'write',
    createdAt: Number(h.createdAt ?? 0),
    expiresAt: Number(h.expiresAt ?? 0),
  };
}
