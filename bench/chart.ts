/**
 * Charts benchmark, one run, in this order (memory first, before any large read swells the heap):
 *   (a) peak RSS added by rendering: from before the renderer is loaded to the highest RSS sampled while it draws
 *       the 24 charts of (b); goal < 60 MB;
 *   (b) rendering a rankings chart of 10 keywords × 90 days (specification, Vega → SVG, resvg → PNG): p50 of 21
 *       after 3 warm-ups; goal < 150 ms;
 *   (c) rendering the rankings digest's trend chart (12 weeks) from the aggregates of a 119,000-row client (the
 *       aggregation is timed apart, as the digest's scan does it): p50 of 11; goal < 150 ms;
 *   (d) render time against the rankings view's own read of the same data (the 50,000 newest of the large
 *       sandbox client's 100,000 rows, read cold by the rankings read charts share), median ratio of 5 rounds;
 *       goal ≤ 0.5×.
 * The sandbox serves from a child process (bench-child.ts), so its work shows in neither time nor memory.
 *
 * Run: npx tsx bench/chart.ts   (--strict: exit 1 when a goal is missed)
 */
import {
  findGc,
  median,
  reportFigures,
  serveForParent,
  startSandboxChild,
  stopChild,
} from './bench-child.js';
import { runIfMain } from './run-if-main.js';

const DAY_MS = 86_400_000;
const MB = 1_048_576;

/** A 10 × 90 series set, deterministic, with gaps (not ranked) as a real client has them. */
export function tenByNinety() {
  const start = Date.UTC(2026, 0, 1);
  return Array.from({ length: 10 }, (_, k) => ({
    keyword: `emergency plumber round rock ${k}`,
    points: Array.from({ length: 90 }, (_, d) => ({
      date: new Date(start + d * DAY_MS).toISOString().slice(0, 10),
      position:
        (d * 7 + k * 13) % 29 === 0
          ? null
          : Math.max(1, Math.round(8 + k * 7 + 9 * Math.sin((d + k * 5) / 8))),
    })),
  }));
}

/** 119,000 keyword rows (9,917 keywords × 12 weekly checks) folded into the 12 weeks the trend chart draws. */
function weeklyAggregates() {
  const weeks = 12;
  const keywords = Math.ceil(119_000 / weeks);
  const monday = Date.UTC(2026, 8, 7);
  const rows = Array.from({ length: keywords * weeks }, (_, i) => ({
    keyword: `kw ${i % keywords}`,
    position: ((i * 2_654_435_761) >>> 0) % 110 < 100 ? 1 + (((i * 40_503) >>> 0) % 100) : null,
    tracked_at: new Date(monday + Math.floor(i / keywords) * 7 * DAY_MS).toISOString().slice(0, 10),
  }));
  const started = performance.now();
  const byWeek = new Map<string, { sum: number; ranked: number; top3: number; top10: number }>();
  for (const row of rows) {
    const w = byWeek.get(row.tracked_at) ?? { sum: 0, ranked: 0, top3: 0, top10: 0 };
    byWeek.set(row.tracked_at, w);
    if (row.position === null) continue;
    w.sum += row.position;
    w.ranked++;
    if (row.position <= 3) w.top3++;
    if (row.position <= 10) w.top10++;
  }
  const aggregates = [...byWeek].map(([week, w]) => ({
    week,
    averagePosition: w.ranked ? w.sum / w.ranked : null,
    top3: w.top3,
    top10: w.top10,
    ranked: w.ranked,
  }));
  return { rows: rows.length, aggregates, aggregateMs: performance.now() - started };
}

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}

const CLIENT = 'Acme Plumbing & Heating';

/**
 * (a) and (b), before anything large is built here: RSS sampled every 5 ms and after every chart (a chart is
 * drawn synchronously, so the memory it leaves for the GC shows right after it).
 */
async function renderingFigures() {
  const series = tenByNinety();
  findGc()();
  const baseline = process.memoryUsage.rss();
  let peak = baseline;
  const sample = () => {
    peak = Math.max(peak, process.memoryUsage.rss());
  };
  const sampler = setInterval(sample, 5);
  // Loaded here, after the baseline: what loading Vega and resvg costs counts as rendering's.
  const { renderChart } = await import('../src/charts/render.js');
  const { rankingsChartSpec } = await import('../src/charts/rankings-chart.js');
  const loadMb = (process.memoryUsage.rss() - baseline) / MB;
  const spec = rankingsChartSpec({ clientLabel: CLIENT, from: '2026-01-01', to: '2026-03-31', series });
  for (let i = 0; i < 3; i++) await renderChart(spec);
  const times: number[] = [];
  for (let i = 0; i < 21; i++) {
    times.push((await timed(() => renderChart(spec))).ms);
    sample();
    // A turn of the event loop between charts, as a server has: resvg's native memory is released by finalizers
    // that run there once V8 has collected their objects (without it, RSS grows ~15 MB a chart).
    await new Promise((resolve) => setImmediate(resolve));
  }
  clearInterval(sampler);
  return { times, addedMb: (peak - baseline) / MB, loadMb };
}

/** (c): the 12 weeks' aggregates of a 119,000-row client, then the trend chart drawn from them. */
async function trendFigures() {
  const { renderChart } = await import('../src/charts/render.js');
  const { rankingsTrendSpec } = await import('../src/charts/rankings-trend-chart.js');
  const weekly = weeklyAggregates();
  const spec = rankingsTrendSpec({
    clientLabel: CLIENT,
    weeks: weekly.aggregates,
    movers: ['plumber austin'],
  });
  await renderChart(spec);
  const times: number[] = [];
  for (let i = 0; i < 11; i++) times.push((await timed(() => renderChart(spec))).ms);
  return { times, rows: weekly.rows, aggregateMs: weekly.aggregateMs };
}

/**
 * (d): the rankings view's read, cold each round (a new client keeps nothing from the round before), and the
 * default chart of what it read.
 */
async function ratioFigures(url: string) {
  const { renderChart } = await import('../src/charts/render.js');
  const { rankingsChartSpec } = await import('../src/charts/rankings-chart.js');
  const { GatewayClient } = await import('../src/gateway/client.js');
  const { rankingsOf } = await import('../src/reads/rankings-read.js');
  const { silentLogger } = await import('../src/logger.js');
  const reads: number[] = [];
  const renders: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < 5; round++) {
    const gateway = new GatewayClient({ baseUrl: url, apiKey: 'sandbox-key', logger: silentLogger() });
    try {
      const read = await timed(() => rankingsOf(gateway, 'acme-plumbing'));
      const { ranked, history } = read.value;
      const top = [...ranked]
        .sort((a, b) => Number(b.search_volume ?? 0) - Number(a.search_volume ?? 0))
        .slice(0, 10)
        .map((r) => String(r.keyword));
      const { oldest, newest } = history.span;
      const series = top.map((k) => history.series(k, oldest, newest));
      const render = await timed(() =>
        renderChart(rankingsChartSpec({ clientLabel: CLIENT, from: oldest, to: newest, series })),
      );
      reads.push(read.ms);
      renders.push(render.ms);
      ratios.push(render.ms / read.ms);
    } finally {
      await gateway.close();
    }
  }
  return { read: median(reads), render: median(renders), ratio: median(ratios) };
}

export async function main(argv: readonly string[] = []) {
  const { url, child } = await startSandboxChild(import.meta.url);
  try {
    const rendering = await renderingFigures();
    const trend = await trendFigures();
    const against = await ratioFigures(url);
    const p50 = median(rendering.times);
    const p95 = [...rendering.times].sort((a, b) => a - b)[19] ?? Number.NaN;
    const trendP50 = median(trend.times);
    const ok = p50 < 150 && trendP50 < 150 && against.ratio <= 0.5 && rendering.addedMb < 60;
    const fmt = (n: number) => n.toFixed(0);
    return reportFigures(
      {
        p50,
        trendP50,
        ratio: against.ratio,
        addedMb: rendering.addedMb,
        ok,
        summary:
          `charts: 10 keywords × 90 days p50 ${fmt(p50)} ms (p95 ${fmt(p95)}; goal < 150) · ` +
          `12-week trend of a ${trend.rows.toLocaleString('en-US')}-row client p50 ${fmt(trendP50)} ms (its aggregation ${fmt(trend.aggregateMs)} ms; goal < 150) · ` +
          `render ÷ the rankings view's read of the same data ${against.ratio.toFixed(2)}× (render ${fmt(against.render)} ms, read ${fmt(against.read)} ms; goal ≤ 0.5×) · ` +
          `peak RSS added by rendering ${rendering.addedMb.toFixed(1)} MB (loading Vega and resvg ${rendering.loadMb.toFixed(1)} MB; goal < 60) · ${ok ? 'ok' : 'MISSED'}`,
      },
      argv,
    );
  } finally {
    await stopChild(child);
  }
}

runIfMain(import.meta.url, () =>
  process.argv.includes('--serve') ? serveForParent() : main(process.argv.slice(2)),
);
