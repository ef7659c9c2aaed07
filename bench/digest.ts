/**
 * Rankings digest benchmark: the large sample client's keyword rows (100,000, plus one day of
 * history after `advance`), read (a) by building the whole rankings digest (read the mark from Redis, page
 * and fold every row, diff, render the Block Kit, write the next mark), and (b) by only paging the same rows
 * through the same GatewayClient. Same run, alternating rounds; the ratio is the digest's overhead.
 *
 * Run: npx tsx bench/digest.ts       (one summary line; --strict exits non-zero on a missed goal)
 *
 * The sandbox runs in a CHILD process (as in bench/pagination.ts): serving the rows costs the server CPU and
 * memory, which must not land in this process's RSS or event loop. Redis is REDIS_URL or 127.0.0.1:6379
 * (keys under a unique prefix, deleted afterwards). Peak RSS is this process's whole resident size while a
 * digest is built, sampled every 2 ms.
 */
import { randomUUID } from 'node:crypto';
import { request } from 'undici';
import { gatherDigest } from '../src/digests/gather.js';
import { DigestStore } from '../src/digests/store.js';
import { GatewayClient } from '../src/gateway/client.js';
import { SANDBOX_KEYS } from '../src/gateway/spec.js';
import { createRedis, deleteByPrefix } from '../src/redis/connection.js';
import { buildRankingsDigest } from '../src/views/digest-rankings.js';
import {
  findGc,
  median,
  reportFigures,
  serveForParent,
  startSandboxChild,
  stopChild,
} from './bench-child.js';
import { runIfMain } from './run-if-main.js';

const CLIENT_ID = 'acme-plumbing';
const CHANNEL = 'CBENCH';
const RATIO_GOAL = 1.5;
const RSS_GOAL_MB = 256;

export interface DigestFigures {
  rows: number;
  keywords: number;
  rounds: number;
  digestMs: number;
  pagingMs: number;
  ratio: number;
  peakRssMb: number;
  summary: string;
  ok: boolean;
}

async function pageOnly(client: GatewayClient): Promise<number> {
  let rows = 0;
  for await (const _row of client.rows('keywords', {
    clientId: CLIENT_ID,
    order: 'tracked_at',
    direction: 'asc',
  })) {
    rows++;
  }
  return rows;
}

async function runDigestBench(options: { rounds?: number } = {}): Promise<DigestFigures> {
  const rounds = options.rounds ?? 5;
  const gc = findGc();
  const { url, origin, child } = await startSandboxChild(import.meta.url);
  const client = new GatewayClient({ baseUrl: url, apiKey: SANDBOX_KEYS.full, connections: 1 });
  const prefix = `bench-digest-${randomUUID().slice(0, 8)}`;
  const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const store = new DigestStore(redis, prefix);
  const markKey = `${prefix}:digest:mark:${CHANNEL}:rankings`;
  const metaKey = `${prefix}:digest:meta:${CHANNEL}:rankings`;
  const input = { channel: CHANNEL, kind: 'rankings' as const, clientId: CLIENT_ID, filters: {} };

  /** The whole digest: mark, paging, folding, diff, Block Kit, next mark. */
  const buildDigest = async () => {
    const gathered = await gatherDigest(client, store, input);
    if (gathered.kind !== 'rankings' || !gathered.diff) throw new Error('expected a rankings diff');
    const post = buildRankingsDigest({
      clientLabel: 'Acme Plumbing & Heating',
      since: gathered.since,
      tz: 'UTC',
      diff: gathered.diff,
      filters: '',
    });
    const meta = { clientId: CLIENT_ID, since: new Date().toISOString(), baselineAt: gathered.since };
    await store.advance(CHANNEL, 'rankings', gathered.mark, meta, undefined);
    return {
      keywords: gathered.tracked,
      moved: gathered.diff.moved.length,
      blocks: post.summary.blocks.length,
    };
  };

  try {
    // The baseline mark, then a day of history upstream: every measured digest diffs the same day.
    const baseline = await gatherDigest(client, store, input);
    await store.advance(
      CHANNEL,
      'rankings',
      baseline.mark,
      { clientId: CLIENT_ID, since: '2025-06-30', baselineAt: '2025-06-30' },
      undefined,
    );
    await redis.copy(markKey, `${markKey}:saved`, 'REPLACE');
    await redis.copy(metaKey, `${metaKey}:saved`, 'REPLACE');
    const advanced = await request(`${origin}/__sandbox/advance`, {
      method: 'POST',
      body: JSON.stringify({ client_id: CLIENT_ID }),
    });
    await advanced.body.dump();
    const restoreMark = async () => {
      await redis.copy(`${markKey}:saved`, markKey, 'REPLACE');
      await redis.copy(`${metaKey}:saved`, metaKey, 'REPLACE');
    };
    // Warm-up: JIT, connection, the sandbox's sorted view of the new rows.
    await pageOnly(client);
    await buildDigest();
    await restoreMark();

    const digestTimes: number[] = [];
    const pagingTimes: number[] = [];
    let peak = 0;
    let rows = 0;
    let keywords = 0;
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? ['digest', 'paging'] : ['paging', 'digest'];
      for (const side of order) {
        gc();
        if (side === 'digest') {
          await restoreMark();
          gc();
          const sampler = setInterval(() => {
            peak = Math.max(peak, process.memoryUsage.rss());
          }, 2);
          const started = performance.now();
          try {
            const built = await buildDigest();
            keywords = built.keywords;
            if (built.moved === 0) throw new Error('the digest found no moves: the advance did not land');
          } finally {
            clearInterval(sampler);
          }
          digestTimes.push(performance.now() - started);
          peak = Math.max(peak, process.memoryUsage.rss());
        } else {
          const started = performance.now();
          rows = await pageOnly(client);
          pagingTimes.push(performance.now() - started);
        }
      }
    }
    const digestMs = median(digestTimes);
    const pagingMs = median(pagingTimes);
    const ratio = median(digestTimes.map((ms, i) => ms / pagingTimes[i]!));
    const peakRssMb = peak / 2 ** 20;
    const ok = ratio <= RATIO_GOAL && peakRssMb < RSS_GOAL_MB && rows >= 100_000;
    const summary =
      `digest: rankings digest ${Math.round(digestMs)} ms, paging alone ${Math.round(pagingMs)} ms, ratio ` +
      `${ratio.toFixed(2)} (goal <= ${RATIO_GOAL}); peak RSS ${peakRssMb.toFixed(0)} MB (goal < ${RSS_GOAL_MB} MB); ` +
      `${rows.toLocaleString('en-US')} keyword rows, ${keywords.toLocaleString('en-US')} keywords, medians of ${rounds} alternating rounds`;
    return { rows, keywords, rounds, digestMs, pagingMs, ratio, peakRssMb, summary, ok };
  } finally {
    await client.close();
    await deleteByPrefix(redis, prefix).catch(() => {});
    await redis.quit().catch(() => redis.disconnect());
    await stopChild(child);
  }
}

/** Entry for `npx tsx bench/digest.ts` and for bench/run-all.ts. */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<DigestFigures> {
  return reportFigures(await runDigestBench(), argv);
}

runIfMain(import.meta.url, () => (process.argv.includes('--serve') ? serveForParent() : main()));
