/**
 * Pagination benchmark: the large sample client's 100,000 keyword rows in 1,000-row pages, read
 * (a) through GatewayClient.rows() and (b) through a bare undici request() loop with JSON.parse.
 *
 * Run: npx tsx bench/pagination.ts           (prints one summary line, exits non-zero on a missed goal
 *                                             only with --strict)
 *
 * The sandbox runs in a CHILD process: serving 100k rows costs the server CPU and memory (row generation,
 * JSON.stringify), and in-process that would land in this process's RSS and event loop, blurring exactly
 * the two figures measured here (client memory growth, client overhead over bare). Both loops talk to the
 * same child over loopback, alternating, so the server's cost is the same on both sides of the ratio.
 */
import { Pool } from 'undici';
import { GatewayClient } from '../src/gateway/client.js';
import { SANDBOX_KEYS } from '../src/gateway/spec.js';
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
const PAGE = 1_000;
const RATIO_GOAL = 1.15;
const RSS_GOAL_MB = 64;

export interface PaginationFigures {
  rows: number;
  rounds: number;
  /** Median of the measured rounds. */
  clientMs: number;
  bareMs: number;
  /** Median of the per-round ratios: each round's two runs saw the same machine load. */
  ratio: number;
  /** Largest RSS rise above the pre-run baseline during any measured iterator run. */
  peakRssGrowthMb: number;
  summary: string;
  ok: boolean;
}

async function readWithClient(client: GatewayClient): Promise<number> {
  let rows = 0;
  for await (const _row of client.rows('keywords', { clientId: CLIENT_ID, limit: PAGE })) rows++;
  return rows;
}

async function readBare(pool: Pool, url: URL): Promise<number> {
  let rows = 0;
  let offset = 0;
  for (;;) {
    const path = `${url.pathname}?resource=keywords&client_id=${CLIENT_ID}&limit=${PAGE}&offset=${offset}`;
    const res = await pool.request({
      method: 'GET',
      path,
      headers: { authorization: `Bearer ${SANDBOX_KEYS.full}` },
    });
    const page = JSON.parse(await res.body.text()) as {
      data: unknown[];
      pagination: { has_more: boolean };
    };
    if (res.statusCode !== 200) throw new Error(`bare loop: HTTP ${res.statusCode}`);
    rows += page.data.length;
    if (!page.pagination.has_more) return rows;
    offset += PAGE;
  }
}

async function timed<T>(run: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await run();
  return { ms: performance.now() - started, value };
}

/** Runs `run` while sampling RSS every 2 ms; returns the peak rise over the baseline taken after a GC. */
async function withRssPeak<T>(
  gc: () => void,
  run: () => Promise<T>,
): Promise<{ growthMb: number; value: T }> {
  gc();
  const baseline = process.memoryUsage.rss();
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 2);
  try {
    const value = await run();
    peak = Math.max(peak, process.memoryUsage.rss());
    return { growthMb: (peak - baseline) / 2 ** 20, value };
  } finally {
    clearInterval(sampler);
  }
}

async function runPaginationBench(options: { rounds?: number } = {}): Promise<PaginationFigures> {
  const rounds = options.rounds ?? 5;
  const gc = findGc();
  const { url, child } = await startSandboxChild(import.meta.url);
  const base = new URL(url);
  const client = new GatewayClient({ baseUrl: url, apiKey: SANDBOX_KEYS.full, connections: 1 });
  const pool = new Pool(base.origin, { connections: 1 });
  try {
    // Warm-up: JIT, connection, and the sandbox's own lazily built rows.
    await readWithClient(client);
    await readBare(pool, base);
    const clientTimes: number[] = [];
    const bareTimes: number[] = [];
    let peakGrowth = 0;
    let rows = 0;
    for (let round = 0; round < rounds; round++) {
      // Alternate which goes first so drift (thermal, GC) does not favour one side.
      const order = round % 2 === 0 ? ['client', 'bare'] : ['bare', 'client'];
      for (const side of order) {
        if (side === 'client') {
          const { growthMb, value } = await withRssPeak(gc, () => timed(() => readWithClient(client)));
          clientTimes.push(value.ms);
          peakGrowth = Math.max(peakGrowth, growthMb);
          rows = value.value;
        } else {
          gc();
          const { ms, value } = await timed(() => readBare(pool, base));
          bareTimes.push(ms);
          if (value !== rows && rows !== 0)
            throw new Error(`row counts differ: client ${rows}, bare ${value}`);
        }
      }
    }
    const clientMs = median(clientTimes);
    const bareMs = median(bareTimes);
    const ratio = median(clientTimes.map((ms, i) => ms / bareTimes[i]!));
    const ok = ratio <= RATIO_GOAL && peakGrowth < RSS_GOAL_MB && rows === 100_000;
    const summary =
      `pagination: client ${Math.round(clientMs)} ms, bare ${Math.round(bareMs)} ms, ratio ${ratio.toFixed(2)} ` +
      `(goal <= ${RATIO_GOAL}); peak RSS growth ${peakGrowth.toFixed(1)} MB (goal < ${RSS_GOAL_MB} MB); ` +
      `${rows} rows, medians of ${rounds} alternating rounds`;
    return { rows, rounds, clientMs, bareMs, ratio, peakRssGrowthMb: peakGrowth, summary, ok };
  } finally {
    await Promise.all([client.close(), pool.close()]);
    await stopChild(child);
  }
}

/** Entry for `npx tsx bench/pagination.ts` and for bench/run-all.ts. */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<PaginationFigures> {
  return reportFigures(await runPaginationBench(), argv);
}

runIfMain(import.meta.url, () => (process.argv.includes('--serve') ? serveForParent() : main()));
