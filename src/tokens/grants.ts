import { createHash } from 'node:crypto';
import type { Redis } from '../redis/connection.js';
import { defineScript, runScript } from '../redis/scripts.js';
import type { OAuthStore } from './oauth-store.js';

/**
 * The grants people gave assistants by signing in (the OAuth side of their assistant tokens): which client,
 * which scope, since when, last used, until when. A grant's public id is short and tells nothing (a hash of the
 * authorization server's own id), as a static token's is. Revoking one removes the grant and every code and
 * token issued under it. A grant revoked by the server (a refresh token used twice) drops from the list too.
 */

export interface OAuthGrant {
  /** The short public id, for `mcp tokens`, `mcp revoke` and Home's Revoke. */
  id: string;
  /** The authorization server's id of the grant (never shown). */
  grantId: string;
  user: string;
  team: string;
  clientId: string;
  /** The client's self-declared name. */
  clientName: string;
  scope: 'read' | 'write';
  createdAt: number;
  expiresAt: number;
  lastUsedAt: number | undefined;
}

/** How often a grant's "last used" is written at most (every call would be one more write per tool call). */
const TOUCH_EVERY_MS = 60_000;

/** Writes a field of a grant's record only while the record stands (a late touch must not revive it). */
const SET_IF_EXISTS = defineScript(
  'gwOauthGrantTouch',
  1,
  `if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end return 1`,
);

export const publicGrantId = (grantId: string) =>
  createHash('sha256').update(`grant:${grantId}`).digest('hex').slice(0, 10);

export class GrantIndex {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly store: OAuthStore,
    /** Told of every grant given or revoked, with its person (their Home tab lists it). */
    private readonly changed: (user: string) => Promise<void> = async () => {},
  ) {}

  #record(id: string) {
    return `${this.prefix}:oauth:grant-record:${id}`;
  }
  #index() {
    return `${this.prefix}:oauth:grants`;
  }
  /** One person's grants (public ids scored by expiry): their list reads theirs only. */
  #personIndex(user: string) {
    return `${this.prefix}:oauth:grants-of:${user}`;
  }

  async add(grant: Omit<OAuthGrant, 'id' | 'lastUsedAt'>): Promise<OAuthGrant> {
    const id = publicGrantId(grant.grantId);
    const record = this.#record(id);
    await this.redis
      .multi()
      .hset(record, {
        grantId: grant.grantId,
        user: grant.user,
        team: grant.team,
        clientId: grant.clientId,
        clientName: grant.clientName,
        scope: grant.scope,
        createdAt: String(grant.createdAt),
        expiresAt: String(grant.expiresAt),
      })
      .pexpireat(record, grant.expiresAt)
      .zadd(this.#index(), grant.expiresAt, id)
      .zadd(this.#personIndex(grant.user), grant.expiresAt, id)
      .exec();
    await this.changed(grant.user).catch(() => {});
    return { ...grant, id, lastUsedAt: undefined };
  }

  /** Unexpired grants still standing, newest first: everyone's, or one person's (from their own index). */
  async list(user?: string): Promise<OAuthGrant[]> {
    await this.#ensureIndexed();
    const index = user ? this.#personIndex(user) : this.#index();
    await this.redis.zremrangebyscore(index, '-inf', Date.now());
    const ids = await this.redis.zrange(index, 0, -1);
    const grants = await Promise.all(ids.map((id) => this.get(id)));
    const out: OAuthGrant[] = [];
    for (const [i, grant] of grants.entries()) {
      if (!grant) await this.redis.zrem(index, ids[i] as string);
      else if (!user || grant.user === user) out.push(grant);
    }
    return out.sort((a, b) => b.createdAt - a.createdAt);
  }

  #indexed: Promise<void> | undefined;

  /** Grants given before the per-person indexes existed join them, once (marked done in Redis). */
  #ensureIndexed(): Promise<void> {
    this.#indexed ??= (async () => {
      const done = `${this.prefix}:oauth:grants-of:indexed`;
      if (await this.redis.exists(done)) return;
      for (const id of await this.redis.zrange(this.#index(), 0, -1)) {
        const grant = await this.get(id);
        if (grant) await this.redis.zadd(this.#personIndex(grant.user), grant.expiresAt, id);
      }
      await this.redis.set(done, '1');
    })().catch((error: unknown) => {
      this.#indexed = undefined;
      throw error;
    });
    return this.#indexed;
  }

  /** A grant by its public id, when it still stands (the server may have revoked it on a reuse). */
  async get(id: string): Promise<OAuthGrant | undefined> {
    if (!/^[0-9a-f]{10}$/.test(id)) return undefined;
    const h = await this.redis.hgetall(this.#record(id));
    if (!h.grantId || !h.user) return undefined;
    if (!(await this.store.read('Grant', h.grantId))) {
      await this.redis.del(this.#record(id));
      return undefined;
    }
    return {
      id,
      grantId: h.grantId,
      user: h.user,
      team: h.team ?? '',
      clientId: h.clientId ?? '',
      clientName: h.clientName ?? '',
      scope: h.scope === 'read' ? 'read' : 'write',
      createdAt: Number(h.createdAt ?? 0),
      expiresAt: Number(h.expiresAt ?? 0),
      lastUsedAt: h.lastUsedAt ? Number(h.lastUsedAt) : undefined,
    };
  }

  /** Revokes a grant by its public id; the grant it was, or undefined when there is none. */
  async revoke(id: string): Promise<OAuthGrant | undefined> {
    const grant = await this.get(id);
    if (!grant) return undefined;
    await this.store.revokeGrant(grant.grantId);
    await this.redis
      .multi()
      .del(this.#record(id))
      .zrem(this.#index(), id)
      .zrem(this.#personIndex(grant.user), id)
      .exec();
    await this.changed(grant.user).catch(() => {});
    return grant;
  }

  /** Notes that a grant's token was used (at most once a minute). */
  async touch(grantId: string): Promise<void> {
    const id = publicGrantId(grantId);
    const first = await this.redis.set(`${this.#record(id)}:touched`, '1', 'PX', TOUCH_EVERY_MS, 'NX');
    if (first) await runScript(this.redis, SET_IF_EXISTS, [this.#record(id)], ['lastUsedAt', Date.now()]);
  }
}
