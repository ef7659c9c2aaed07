import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from '../redis/connection.js';
import { defineScript, runScript } from '../redis/scripts.js';

/**
 * Assistant-tool tokens (the MCP server's bearer tokens), minted by a person in Slack. A token is shown once and
 * stored only as its SHA-256 hash, bound to the person and their workspace, with an expiry. Every check reads
 * Redis (no copy in a process), so a revoked token is refused by every web process at its next call. Each
 * person's tokens have an index of their own, so listing or revoking one person's reads only theirs (with
 * pipelined reads); minting checks the person's active tokens and minting rate in the same atomic step.
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

/** How many active tokens a person may hold, and how fast they may mint (per person, all processes). */
export interface MintLimits {
  maxActive: number;
  rate: { max: number; windowMs: number };
}

export interface MintInput {
  user: string;
  team: string;
  scope: TokenScope;
  ttlMs: number;
}

export type MintOutcome =
  | { kind: 'minted'; secret: string; token: AssistantToken }
  /** The person holds `maxActive` unexpired tokens already. */
  | { kind: 'too-many'; active: number }
  /** The person minted `rate.max` tokens in this window; the seconds until it ends. */
  | { kind: 'too-fast'; retryAfterSec: number };

/** No limit: the demo's and the benches' tokens (a rate of 0 is not counted). */
const UNLIMITED: MintLimits = { maxActive: Number.MAX_SAFE_INTEGER, rate: { max: 0, windowMs: 60_000 } };

/**
 * Mints one token if the person may: drops their expired ids, refuses at `maxActive` active tokens or `rate`
 * mints in the window (a rate of 0: none counted), else writes the record, the id, both indexes and counts the mint. {1} minted,
 * {0, active} too many, {-1, ms left} too fast.
 * KEYS: person index, rate window, record (by hash), id, everyone's index.
 * ARGV: now, maxActive, rate max, window ms, id, hash, expiresAt, then the record's field/value pairs.
 */
const MINT = defineScript(
  'gwTokenMint',
  5,
  `redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
   local active = redis.call('ZCARD', KEYS[1])
   if active >= tonumber(ARGV[2]) then return {0, active} end
   if tonumber(ARGV[3]) > 0 then
     local used = tonumber(redis.call('GET', KEYS[2]) or '0')
     if used >= tonumber(ARGV[3]) then return {-1, redis.call('PTTL', KEYS[2])} end
     redis.call('INCR', KEYS[2])
     redis.call('PEXPIRE', KEYS[2], ARGV[4])
   end
   local fields = {}
   for i = 8, #ARGV do fields[#fields + 1] = ARGV[i] end
   redis.call('HSET', KEYS[3], unpack(fields))
   redis.call('PEXPIREAT', KEYS[3], ARGV[7])
   redis.call('SET', KEYS[4], ARGV[6], 'PXAT', ARGV[7])
   redis.call('ZADD', KEYS[5], ARGV[7], ARGV[5])
   redis.call('ZADD', KEYS[1], ARGV[7], ARGV[5])
   return {1, 0}`,
);

export class AssistantTokenStore {
  #indexed: Promise<void> | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly options: {
      /** Told of every token minted or revoked, with its person (their Home tab lists it). */
      changed?: (user: string) => Promise<void>;
    } = {},
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
  /** Every token's id, scored by its expiry: the admins' list. */
  #index() {
    return `${this.prefix}:mcp:tokens`;
  }
  /** One person's token ids, scored by expiry. */
  #personIndex(user: string) {
    return `${this.prefix}:mcp:tokens-of:${user}`;
  }

  /** A new token with no limit (the demo's, benches'): the secret, shown once and never stored, and its record. */
  async mint(input: MintInput): Promise<{ secret: string; token: AssistantToken }> {
    const minted = await this.mintWithin(input, UNLIMITED);
    if (minted.kind !== 'minted') throw new Error('an unlimited mint was refused');
    return minted;
  }

  /** A new token, or why the person may not mint one now (tokens/ holds the limits every surface mints within). */
  async mintWithin(input: MintInput, { maxActive, rate }: MintLimits): Promise<MintOutcome> {
    await this.#ensureIndexed();
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
    const window = Math.floor(now / rate.windowMs);
    const [done, detail] = (await runScript(
      this.redis,
      MINT,
      [
        this.#personIndex(token.user),
        `${this.prefix}:mcp:mint-rate:${token.user}:${window}`,
        this.#byHash(hash),
        this.#byId(token.id),
        this.#index(),
      ],
      [now, maxActive, rate.max, rate.windowMs, token.id, hash, token.expiresAt, ...recordFields(token)],
    )) as [number, number];
    if (done === 0) return { kind: 'too-many', active: detail };
    if (done === -1) return { kind: 'too-fast', retryAfterSec: Math.max(1, Math.ceil(detail / 1_000)) };
    await this.#changed(token.user);
    return { kind: 'minted', secret, token };
  }

  /** The token a bearer secret is, when it is one, unexpired and not revoked. */
  async verify(secret: string): Promise<AssistantToken | undefined> {
    if (!secret.startsWith(TOKEN_PREFIX) || secret.length > 200) return undefined;
    const token = parse(await this.redis.hgetall(this.#byHash(hashOf(secret))));
    return token && token.expiresAt > Date.now() ? token : undefined;
  }

  /** Unexpired tokens, newest first: everyone's, or one person's (from their own index). */
  async list(user?: string): Promise<AssistantToken[]> {
    await this.#ensureIndexed();
    const index = user ? this.#personIndex(user) : this.#index();
    const [, [, ids]] = (await this.redis
      .multi()
      .zremrangebyscore(index, '-inf', Date.now())
      .zrange(index, 0, -1)
      .exec()) as [unknown, [unknown, string[]]];
    const tokens = await this.#records(ids);
    return tokens.filter((t) => !user || t.user === user).sort((a, b) => b.createdAt - a.createdAt);
  }

  /** The records of these ids (two pipelined round trips, whatever their number); gone ones left out. */
  async #records(ids: readonly string[]): Promise<AssistantToken[]> {
    const valid = ids.filter((id) => /^[0-9a-f]{1,40}$/.test(id));
    if (valid.length === 0) return [];
    const hashes = await pipelined(this.redis, (p) => {
      for (const id of valid) p.get(this.#byId(id));
    });
    const found = hashes.filter((h): h is string => typeof h === 'string');
    const records = await pipelined(this.redis, (p) => {
      for (const hash of found) p.hgetall(this.#byHash(hash));
    });
    return records.map((r) => parse((r ?? {}) as Record<string, string>)).filter((t) => t !== undefined);
  }

  async #get(id: string): Promise<AssistantToken | undefined> {
    return (await this.#records([id]))[0];
  }

  /**
   * Revokes a token for `by`: their own, or anyone's for an admin (`everyone`). Undefined when there is no such
   * token for them: someone else's is answered as an unknown one, so its id tells nothing. The rule for every
   * surface (the `mcp revoke` command, the Home tab's Revoke).
   */
  async revokeAs(id: string, by: string, everyone: boolean): Promise<AssistantToken | undefined> {
    const token = await this.#get(id);
    if (!token || token.expiresAt <= Date.now() || (!everyone && token.user !== by)) return undefined;
    return this.revoke(token.id);
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
      .zrem(this.#personIndex(token.user), id)
      .exec();
    await this.#changed(token.user);
    return token;
  }

  /**
   * Tokens minted before the per-person indexes existed join them, once per process (the walk is done again
   * only until a process has marked it done in Redis).
   */
  #ensureIndexed(): Promise<void> {
    this.#indexed ??= (async () => {
      const done = `${this.prefix}:mcp:tokens-of:indexed`;
      if (await this.redis.exists(done)) return;
      const ids = await this.redis.zrange(this.#index(), 0, -1);
      const tokens = await this.#records(ids);
      if (tokens.length) {
        const tx = this.redis.multi();
        for (const t of tokens) tx.zadd(this.#personIndex(t.user), t.expiresAt, t.id);
        await tx.exec();
      }
      await this.redis.set(done, '1');
    })().catch((error: unknown) => {
      this.#indexed = undefined;
      throw error;
    });
    return this.#indexed;
  }
}

type Pipeline = ReturnType<Redis['pipeline']>;

/** The answers of one pipeline, in order; a failed command throws. */
async function pipelined(redis: Redis, add: (p: Pipeline) => void): Promise<unknown[]> {
  const pipeline = redis.pipeline();
  add(pipeline);
  const results = (await pipeline.exec()) ?? [];
  return results.map(([error, value]) => {
    if (error) throw error;
    return value;
  });
}

function recordFields(token: AssistantToken): string[] {
  return [
    'id',
    token.id,
    'user',
    token.user,
    'team',
    token.team,
    'scope',
    token.scope,
    'createdAt',
    String(token.createdAt),
    'expiresAt',
    String(token.expiresAt),
  ];
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
