/**
 * The assistant-token store and the read tools' cursors on a real Redis: only a token's hash is stored, a
 * revoked or expired token is refused, and a cursor opens only for the list it was signed for.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { CursorSigner } from '../../src/mcp/cursor.js';
import { AssistantTokenStore } from '../../src/store/assistant-token-store.js';
import { testRedis, uniquePrefix } from '../helpers/redis.js';

const prefix = uniquePrefix('assistant-tokens');
const { redis, cleanup } = testRedis(prefix);

afterAll(cleanup);

describe('assistant tokens', () => {
  const store = new AssistantTokenStore(redis, prefix);

  it('stores only the hash, binds the person and workspace, and refuses the token once revoked', async () => {
    const { secret, token } = await store.mint({ user: 'U1', team: 'T1', scope: 'read', ttlMs: 60_000 });
    expect(secret).toMatch(/^gwb_[A-Za-z0-9_-]{43}$/);
    const keys = await redis.keys(`${prefix}:*`);
    for (const key of keys) {
      const type = await redis.type(key);
      const value =
        type === 'hash'
          ? JSON.stringify(await redis.hgetall(key))
          : type === 'zset'
            ? JSON.stringify(await redis.zrange(key, 0, -1))
            : String(await redis.get(key));
      expect(`${key} ${value}`).not.toContain(secret.slice(4));
    }
    expect(await store.verify(secret)).toMatchObject({ id: token.id, user: 'U1', team: 'T1', scope: 'read' });
    expect(await store.verify(`${secret}x`)).toBeUndefined();
    expect(await store.verify('not-a-token')).toBeUndefined();
    expect((await store.list('U1')).map((t) => t.id)).toEqual([token.id]);
    expect(await store.list('U2')).toEqual([]);
    expect(await store.revoke(token.id)).toMatchObject({ id: token.id });
    expect(await store.verify(secret)).toBeUndefined();
    expect(await store.revoke(token.id)).toBeUndefined();
  });

  it('refuses an expired token and leaves it out of the lists', async () => {
    const { secret } = await store.mint({ user: 'U3', team: 'T1', scope: 'write', ttlMs: 50 });
    await new Promise((r) => setTimeout(r, 120));
    expect(await store.verify(secret)).toBeUndefined();
    expect(await store.list('U3')).toEqual([]);
  });
});

describe('read-tool cursors', () => {
  const scope = { tool: 'list_keywords', user: 'U1', clientId: 'acme', filter: ['keywords', null] };

  it('opens a cursor for its own list only, on any process sharing the Redis', async () => {
    const signer = new CursorSigner(redis, prefix);
    const cursor = await signer.sign(scope, 250);
    // Another process: its own signer, the same key from Redis.
    const other = new CursorSigner(redis, prefix);
    expect(await other.open(scope, cursor)).toBe(250);
    expect(await other.open({ ...scope, clientId: 'bright' }, cursor)).toBeUndefined();
    expect(await other.open({ ...scope, user: 'U2' }, cursor)).toBeUndefined();
    expect(await other.open({ ...scope, tool: 'list_rankings' }, cursor)).toBeUndefined();
    expect(await other.open({ ...scope, filter: ['keywords', 'paused'] }, cursor)).toBeUndefined();
    const [body, mac] = cursor.split('.');
    const forged = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(body ?? '', 'base64url').toString()), p: 0 }),
    ).toString('base64url');
    expect(await other.open(scope, `${forged}.${mac}`)).toBeUndefined();
    expect(await other.open(scope, 'garbage')).toBeUndefined();
  });
});
