/**
 * Assistant tokens minted in Slack, at their limits, through the real bot (its own redis-server, so the commands
 * Redis answers can be counted): at most 10 active tokens a person, the 11th refused with what to do; at most 3
 * mints a minute a person; and one person's `mcp tokens` and `mcp revoke` read that person's tokens only, not
 * every token in the system.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from '../../src/redis/connection.js';
import { CHANNEL, type Harness, mintMcpToken, startHarness, textOf } from '../helpers/bot-harness.js';
import { freePorts, RedisProcess } from '../helpers/redis-process.js';

const HOARDER = 'UHOARD';
const HASTY = 'UHASTY';
const LISTER = 'ULISTER';
const OTHERS = 300;

describe('assistant tokens at their limits', () => {
  let h: Harness;
  let server: RedisProcess;
  let redis: Redis;

  const answer = async (text: string, user: string, pattern: RegExp) => {
    const before = h.slack.ephemerals(CHANNEL, user).length;
    await h.gateway(text, { user });
    return textOf(
      await h.slack.waitFor(
        () =>
          h.slack
            .ephemerals(CHANNEL, user)
            .slice(before)
            .find((m) => pattern.test(textOf(m))),
        { what: `an answer to ${text}` },
      ),
    );
  };
  const seed = (user: string) =>
    h.runtime.services.assistantTokens.mint({ user, team: 'T0', scope: 'read', ttlMs: 3_600_000 });
  /** How many times Redis ran each command so far (INFO commandstats). */
  const calls = async (): Promise<Record<string, number>> => {
    const info = await redis.info('commandstats');
    const out: Record<string, number> = {};
    for (const m of info.matchAll(/cmdstat_([a-z|]+):calls=(\d+)/g)) out[m[1] as string] = Number(m[2]);
    return out;
  };
  const readsDuring = async (work: () => Promise<unknown>) => {
    const before = await calls();
    await work();
    const after = await calls();
    return ['get', 'hgetall'].reduce((n, c) => n + (after[c] ?? 0) - (before[c] ?? 0), 0);
  };

  beforeAll(async () => {
    const [port = 0] = await freePorts(1);
    server = RedisProcess.make(port, [], 'tokens');
    await server.start();
    h = await startHarness('e2e-mcp-tokens', { REDIS_URL: `redis://127.0.0.1:${port}` });
    redis = h.runtime.services.redis;
  }, 60_000);

  afterAll(async () => {
    await h?.close();
    await server?.stop();
  });

  it('refuses an eleventh active token, naming `mcp tokens` and `revoke`; a revoke makes room', async () => {
    const held = [];
    for (let i = 0; i < 9; i++) held.push((await seed(HOARDER)).token.id);
    expect(await mintMcpToken(h, HOARDER)).toMatch(/^gwb_/);
    const refused = await answer('mcp token', HOARDER, /active assistant tokens/);
    expect(refused).toContain('/gateway mcp tokens');
    expect(refused).toContain('revoke');
    expect(refused).not.toMatch(/gwb_/);
    expect(await h.runtime.services.tokens.list(HOARDER)).toHaveLength(10);
    await answer(`mcp revoke ${held[0]}`, HOARDER, /revoked/i);
    expect(await mintMcpToken(h, HOARDER)).toMatch(/^gwb_/);
    expect(await h.runtime.services.tokens.list(HOARDER)).toHaveLength(10);
  });

  it('refuses a fourth mint within a minute, saying when to try again', async () => {
    for (let i = 0; i < 3; i++) expect(await mintMcpToken(h, HASTY)).toMatch(/^gwb_/);
    const refused = await answer('mcp token', HASTY, /a moment ago/);
    expect(refused).toMatch(/Try again in \d+ s/);
    expect(refused).not.toMatch(/gwb_/);
    expect(await h.runtime.services.tokens.list(HASTY)).toHaveLength(3);
  });

  it('lists and revokes one person’s tokens without reading everyone’s', async () => {
    await Promise.all(Array.from({ length: OTHERS }, (_, i) => seed(`UOTHER${i}`)));
    const mine = (await seed(LISTER)).token.id;
    const listed = await readsDuring(() => answer('mcp tokens', LISTER, new RegExp(mine)));
    const revoked = await readsDuring(() => answer(`mcp revoke ${mine}`, LISTER, /revoked/i));
    // A walk of every token reads two keys a token (600 here); the person's own index, a handful.
    expect(listed).toBeLessThan(60);
    expect(revoked).toBeLessThan(60);
    expect(await h.runtime.services.tokens.list(LISTER)).toEqual([]);
  });
});
