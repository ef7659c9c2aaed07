import { createHash } from 'node:crypto';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Redis } from '../redis/connection.js';
import { defineScript, runScript } from '../redis/scripts.js';

/**
 * Where the authorization server keeps its records (oidc-provider's adapter interface) in Redis, shared by every
 * process: codes, access and refresh tokens, grants, registered clients, sign-in interactions. Every key is the
 * SHA-256 of the record's id, so a dump of Redis holds no usable token or code. Consuming a code or a refresh
 * token is one atomic step: of two requests racing with the same one, the second is refused and the grant is
 * revoked (as a reuse is). A registered client expires when no grant uses it.
 */

/** A registered client with no grant is forgotten after this long: an assistant signs in right after it registers. */
const UNUSED_CLIENT_TTL_S = 3_600;
/** Registered clients no one has signed in with yet, at most, in all: registration is open to anyone. */
const MAX_UNUSED_CLIENTS = 500;

const hashOf = (id: string) => createHash('sha256').update(id).digest('hex');

/** Marks a record consumed once: 1 when this call did, 0 when it already was, -1 when there is none. */
const CONSUME = defineScript(
  'gwOauthConsume',
  1,
  `if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
   if redis.call('HSETNX', KEYS[1], 'c', ARGV[1]) == 0 then return 0 end
   return 1`,
);

/**
 * Records whose id is a secret (a token, a code, a sign-in cookie's value): oidc-provider also puts the id in
 * the payload (`jti`), which is left out here and given back from the id a lookup is made with.
 */
const SECRET_IDS = new Set([
  'AccessToken',
  'RefreshToken',
  'AuthorizationCode',
  'ClientCredentials',
  'RegistrationAccessToken',
  'InitialAccessToken',
  'PushedAuthorizationRequest',
  'BackchannelAuthenticationRequest',
  'Interaction',
]);

/** Records whose reuse means someone else holds them: the grant goes. */
const SINGLE_USE = new Set(['AuthorizationCode', 'RefreshToken']);

export class OAuthStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  key(model: string, id: string): string {
    return `${this.prefix}:oauth:${model}:${hashOf(id)}`;
  }
  #grantMembers(grantId: string): string {
    return `${this.prefix}:oauth:grant-members:${hashOf(grantId)}`;
  }
  #uid(uid: string): string {
    return `${this.prefix}:oauth:session-uid:${hashOf(uid)}`;
  }
  #userCode(code: string): string {
    return `${this.prefix}:oauth:user-code:${hashOf(code)}`;
  }
  /** Registered clients without a grant yet, scored by when they expire. */
  #unusedClients(): string {
    return `${this.prefix}:oauth:unused-clients`;
  }
  /** Present while a grant of the client may be used: someone of the workspace allowed it. */
  #consented(clientId: string): string {
    return `${this.prefix}:oauth:client-consented:${hashOf(clientId)}`;
  }

  /** The adapter oidc-provider builds one of per model (`AccessToken`, `Grant`, `Client`, …). */
  adapterFor(model: string): Adapter {
    return {
      upsert: (id, payload, expiresIn) => this.#upsert(model, id, payload, expiresIn),
      find: (id) => this.read(model, id),
      findByUid: async (uid) => {
        const key = await this.redis.get(this.#uid(uid));
        return key ? this.#readKey(key) : undefined;
      },
      findByUserCode: async (code) => {
        const key = await this.redis.get(this.#userCode(code));
        return key ? this.#readKey(key) : undefined;
      },
      consume: (id) => this.#consume(model, id),
      destroy: async (id) => {
        await this.redis.del(this.key(model, id));
      },
      revokeByGrantId: (grantId) => this.revokeGrant(grantId),
    };
  }

  /** A record as oidc-provider stored it, with `consumed` when it was. */
  async read(model: string, id: string): Promise<AdapterPayload | undefined> {
    const payload = await this.#readKey(this.key(model, id));
    return payload && SECRET_IDS.has(model) ? { ...payload, jti: id } : payload;
  }

  async #readKey(key: string): Promise<AdapterPayload | undefined> {
    const [json, consumed] = await this.redis.hmget(key, 'p', 'c');
    if (!json) return undefined;
    const payload = JSON.parse(json) as AdapterPayload;
    return consumed ? { ...payload, consumed: Number(consumed) } : payload;
  }

  async #upsert(model: string, id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    const key = this.key(model, id);
    const ttlMs = (expiresIn ?? (model === 'Client' ? UNUSED_CLIENT_TTL_S : 0)) * 1_000;
    const { jti, ...rest } = payload;
    const stored = SECRET_IDS.has(model) ? rest : payload;
    const tx = this.redis.multi().del(key).hset(key, 'p', JSON.stringify(stored));
    if (ttlMs > 0) tx.pexpire(key, ttlMs);
    if (model === 'Client' && expiresIn === undefined)
      tx.zadd(this.#unusedClients(), Date.now() + ttlMs, key).pexpire(this.#unusedClients(), ttlMs);
    const { grantId, uid, userCode } = payload;
    if (grantId) {
      const members = this.#grantMembers(grantId);
      tx.sadd(members, key);
      // The member list lives as long as its longest member (a refresh token outlives the codes).
      if (ttlMs > 0) tx.pexpire(members, ttlMs, 'GT');
      if (model === 'Grant' || ttlMs === 0) tx.persist(members);
    }
    for (const index of [uid && this.#uid(uid), userCode && this.#userCode(userCode)]) {
      if (!index) continue;
      if (ttlMs > 0) tx.set(index, key, 'PX', ttlMs);
      else tx.set(index, key);
    }
    await tx.exec();
  }

  async #consume(model: string, id: string): Promise<void> {
    const key = this.key(model, id);
    const done = Number(await runScript(this.redis, CONSUME, [key], [Math.floor(Date.now() / 1000)]));
    if (done !== 0 || !SINGLE_USE.has(model)) return;
    // Two requests presented the same code or refresh token at once: one of them is not its owner.
    const grantId = (await this.#readKey(key))?.grantId;
    if (grantId) await this.revokeGrant(grantId);
    // oidc-provider is loaded only where sign-in is on (it warns at load on a Node.js it does not support).
    const { errors } = await import('oidc-provider');
    throw new errors.InvalidGrant(
      `${model === 'RefreshToken' ? 'refresh token' : 'authorization code'} already used`,
    );
  }

  /** Removes a grant and every code and token issued under it (from every process's point of view at once). */
  async revokeGrant(grantId: string): Promise<void> {
    const members = this.#grantMembers(grantId);
    const keys = await this.redis.smembers(members);
    await this.redis
      .multi()
      .del(this.key('Grant', grantId), members, ...keys)
      .exec();
  }

  /**
   * Keeps a registered client as long as a grant of it may be used (`expiresInS` from now, or longer), and
   * remembers that someone allowed it (its errors may then go back to it, `clientConsented`).
   */
  async keepClient(clientId: string, expiresInS: number): Promise<void> {
    const key = this.key('Client', clientId);
    await this.redis
      .multi()
      .pexpire(key, expiresInS * 1_000, 'GT')
      .zrem(this.#unusedClients(), key)
      .set(this.#consented(clientId), '1', 'PX', expiresInS * 1_000)
      .exec();
  }

  async clientConsented(clientId: string): Promise<boolean> {
    return (await this.redis.exists(this.#consented(clientId))) === 1;
  }

  /** Whether one more client may register: fewer than MAX_UNUSED_CLIENTS registered ones wait unused. */
  async registrationRoom(): Promise<boolean> {
    const set = this.#unusedClients();
    const [, [, unused]] = (await this.redis
      .multi()
      .zremrangebyscore(set, '-inf', Date.now())
      .zcard(set)
      .exec()) as [unknown, [unknown, number]];
    return unused < MAX_UNUSED_CLIENTS;
  }
}
