/**
 * A digest's memory does not grow with the client's rows: the rankings scan folds rows as they are paged and
 * keeps per keyword only what the message needs. Two synthetic clients of the sandbox with the same 1,000
 * keywords, observed for 10 and for 100 days (10,000 and 100,000 rows, computed by the sandbox per page, never
 * stored), go through the real gateway client over HTTP and the real digest store. Measured two ways that a
 * loaded machine does not blur: what the scan holds, counted; and the heap the digest's result retains after a
 * full GC (the 90,000 rows more would be tens of MB if any were kept).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatherDigest } from '../../src/digests/gather.js';
import { RankingScan } from '../../src/digests/rankings.js';
import { DigestStore } from '../../src/digests/store.js';
import { GatewayClient } from '../../src/gateway/client.js';
import { SANDBOX_KEYS } from '../../src/gateway/spec.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { testRedis, uniquePrefix } from '../helpers/redis.js';

const SMALL = 'synth-1000x10-1';
const LARGE = 'synth-1000x100-1';
const MB = 1024 * 1024;

const prefix = uniquePrefix('digest-memory');
const { redis, cleanup } = testRedis(prefix);
const store = new DigestStore(redis, prefix);
let sandbox: Sandbox;
let gateway: GatewayClient;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/**
 * The heap after full GCs with turns of the event loop between them, until it stops shrinking: a worker that ran
 * other test files before this one still frees their leftovers (finalizers, closed sockets) a turn at a time.
 */
async function heapAfterGc(): Promise<number> {
  let last = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 10; i++) {
    gc();
    await new Promise((r) => setImmediate(r));
    const now = process.memoryUsage().heapUsed;
    if (now >= last - 64 * 1024) return now;
    last = now;
  }
  return last;
}

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
  gateway = new GatewayClient({ baseUrl: sandbox.url, apiKey: SANDBOX_KEYS.full, connections: 1 });
});
afterAll(async () => {
  await gateway?.close();
  await sandbox?.close();
  await cleanup();
});

async function scan(clientId: string): Promise<RankingScan> {
  const folded = new RankingScan();
  for await (const row of gateway.rows('keywords', { clientId, order: 'tracked_at', direction: 'asc' }))
    folded.add(row);
  return folded;
}

/** The heap the fold of a client's rows retains once the walk is over, after a full GC either side. */
async function retainedBy(clientId: string): Promise<{ bytes: number; folded: RankingScan }> {
  const before = await heapAfterGc();
  const folded = await scan(clientId);
  return { bytes: (await heapAfterGc()) - before, folded };
}

describe('a digest’s memory as rows grow', () => {
  it('holds the same per-keyword state and about the same heap for 10,000 and 100,000 rows', async () => {
    // A first walk warms the connection, the parsers and the code paths, so neither measure pays for them.
    await scan(SMALL);
    const small = await retainedBy(SMALL);
    const large = await retainedBy(LARGE);
    expect([small.folded.rows, large.folded.rows]).toEqual([10_000, 100_000]);
    const a = small.folded.footprint();
    const b = large.folded.footprint();
    expect(b.keywords).toBe(a.keywords);
    // The sparkline keeps the last 8 positions of a keyword, whatever its history.
    expect(a.sparkPoints).toBe(a.keywords * 8);
    expect(b.sparkPoints).toBe(a.sparkPoints);
    // Dates and weeks grow with the days tracked (100 and 15 here), not with the rows: a few numbers each.
    expect(b.dates).toBe(100);
    expect(b.weeks).toBeLessThanOrEqual(16);
    // 90,000 rows more, if held, would be over 20 MB; the per-keyword state is well under 1 MB either way.
    expect(small.bytes).toBeLessThan(4 * MB);
    // A worker that ran other files first may still free their leftovers during a walk (a negative reading): the
    // larger walk is held to what the smaller one kept, or to nothing, whichever is more.
    expect(large.bytes).toBeLessThan(Math.max(small.bytes, 0) + 2 * MB);
  }, 120_000);

  it('a rankings digest walks the 100,000 rows once and keeps one position per keyword as its mark', async () => {
    const before = sandbox.requests().length;
    const gathered = await gatherDigest(gateway, store, {
      channel: 'CMEM',
      kind: 'rankings',
      clientId: LARGE,
      filters: {},
    });
    if (gathered.kind !== 'rankings') throw new Error('expected a rankings digest');
    // 1,000-row pages: 100 reads, no second walk for the weeks.
    expect(sandbox.requests().length - before).toBe(100);
    expect(gathered.mark.positions.size).toBe(1_000);
    expect(gathered.weeks.length).toBe(12);
  }, 120_000);
});
