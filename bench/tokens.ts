/**
 * Assistant-token listing benchmark (`npx tsx bench/tokens.ts`): one person's `list(user)` and `revokeAs` with
 * 3,000 tokens in the system (1,000 people, 3 each), through the per-person index and pipelined reads, against
 * the full scan the store did before (kept here as the baseline: every token's id from the global index, then
 * two round trips a token, filtered by person). Both on the same Redis and the same keys, interleaved, in one
 * run; the figure is the ratio. `/gateway mcp tokens` and Home's publish call list(user).
 */
import { randomUUID } from 'node:crypto';
import { ensureRedis } from '../src/local/redis-local.js';
import { createRedis, deleteByPrefix, type Redis } from '../src/redis/connection.js';
import { type AssistantToken, AssistantTokenStore } from '../src/store/assistant-token-store.js';
import { runIfMain } from './run-if-main.js';

const PEOPLE = 1_000;
const EACH = 3;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

/** The store's list before the per-person index: a walk of every token, two round trips each. */
async function scanList(redis: Redis, prefix: string, user: string): Promise<AssistantToken[]> {
  const index = `${prefix}:mcp:tokens`;
  await redis.zremrangebyscore(index, '-inf', Date.now());
  const out: AssistantToken[] = [];
  for (const id of await redis.zrange(index, 0, -1)) {
    const hash = await redis.get(`${prefix}:mcp:token-id:${id}`);
    if (!hash) continue;
    const h = await redis.hgetall(`${prefix}:mcp:token:${hash}`);
    if (h.user === user)
      out.push({
        id: h.id ?? id,
        user: h.user,
        team: h.team ?? '',
        scope: h.scope === 'read' ? 'read' : 'write',
        createdAt: Number(h.createdAt),
        expiresAt: Number(h.expiresAt),
      });
  }
  return out;
}

async function timed<T>(work: () => Promise<T>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

export async function main(argv: readonly string[] = process.argv.slice(2)) {
  const samples = Number(
    /^--samples=(\d+)$/.exec(argv.find((a) => a.startsWith('--samples=')) ?? '')?.[1] ?? 20,
  );
  const { url } = await ensureRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const redis = createRedis(url);
  const prefix = `bench-tokens-${randomUUID().slice(0, 8)}`;
  const store = new AssistantTokenStore(redis, prefix);
  try {
    const ids = new Map<string, string[]>();
    for (let p = 0; p < PEOPLE; p += 100) {
      const batch = Array.from({ length: 100 * EACH }, (_, i) => `UB${p + Math.floor(i / EACH)}`);
      const minted = await Promise.all(
        batch.map((user) => store.mint({ user, team: 'T0', scope: 'read', ttlMs: 3_600_000 })),
      );
      for (const { token } of minted) ids.set(token.user, [...(ids.get(token.user) ?? []), token.id]);
    }
    const list = { index: [] as number[], scan: [] as number[] };
    const revoke = { index: [] as number[], scan: [] as number[] };
    for (let i = 0; i < samples; i++) {
      const user = `UB${i}`;
      list.scan.push(await timed(() => scanList(redis, prefix, user)));
      list.index.push(await timed(() => store.list(user)));
      const [a, b] = ids.get(user) ?? [];
      // The old revokeAs: the person's list by a full scan, then the revoke.
      revoke.scan.push(
        await timed(async () => {
          if ((await scanList(redis, prefix, user)).some((t) => t.id === a)) await store.revoke(a as string);
        }),
      );
      revoke.index.push(await timed(() => store.revokeAs(b as string, user, false)));
    }
    const figures = {
      tokens: PEOPLE * EACH,
      listMs: { scan: median(list.scan), index: median(list.index) },
      revokeMs: { scan: median(revoke.scan), index: median(revoke.index) },
    };
    const ratio = (f: { scan: number; index: number }) => (f.scan / f.index).toFixed(0);
    console.log(
      `${figures.tokens} tokens in the system, median of ${samples}: ` +
        `list(user) ${figures.listMs.index.toFixed(2)} ms (full scan ${figures.listMs.scan.toFixed(1)} ms, ${ratio(figures.listMs)}× faster); ` +
        `revokeAs ${figures.revokeMs.index.toFixed(2)} ms (full scan ${figures.revokeMs.scan.toFixed(1)} ms, ${ratio(figures.revokeMs)}× faster)`,
    );
    return figures;
  } finally {
    await deleteByPrefix(redis, prefix);
    redis.disconnect();
  }
}

runIfMain(import.meta.url, main);
