/** Times each stage of one 10 × 90 rankings chart on the main thread (compile, parse, SVG, resvg, PNG). Run: npx tsx bench/chart-stages.ts */
import { fileURLToPath } from 'node:url';
import { CHART_FONT } from '../src/charts/chart-style.js';
import { rankingsChartSpec } from '../src/charts/index.js';

const MB = 1_048_576;
const rss = () => process.memoryUsage().rss / MB;
const r0 = rss();
const t = performance.now();
const vega = await import('vega');
const vl = await import('vega-lite');
const resvg = await import('@resvg/resvg-js');
console.log(`load modules ${(performance.now() - t).toFixed(0)} ms, rss +${(rss() - r0).toFixed(0)} MB`);
const DAY = 86_400_000,
  start = Date.UTC(2026, 0, 1);
const series = Array.from({ length: 10 }, (_, k) => ({
  keyword: `emergency plumber round rock ${k}`,
  points: Array.from({ length: 90 }, (_, d) => ({
    date: new Date(start + d * DAY).toISOString().slice(0, 10),
    position:
      (d * 7 + k * 13) % 29 === 0 ? null : Math.max(1, Math.round(8 + k * 7 + 9 * Math.sin((d + k * 5) / 8))),
  })),
}));
const spec = rankingsChartSpec({ clientLabel: 'Acme', from: '2026-01-01', to: '2026-03-31', series });
const fonts = [
  fileURLToPath(new URL('../..../src/charts/fonts/DejaVuSans-core.ttf', 'file:///tmp/h33b/')),
  fileURLToPath(import.meta.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf')),
];
const opts: import('@resvg/resvg-js').ResvgRenderOptions = {
  font: {
    fontFiles: fonts,
    loadSystemFonts: false,
    defaultFontFamily: CHART_FONT,
    sansSerifFamily: CHART_FONT,
  },
  background: '#FFFFFF',
  logLevel: 'off',
};
const T: Record<string, number[]> = {};
const m = (k: string, v: number) => {
  const list = T[k] ?? [];
  T[k] = list;
  list.push(v);
};
for (let i = 0; i < 14; i++) {
  let a = performance.now();
  const c = vl.compile(spec).spec;
  m('vl.compile', performance.now() - a);
  a = performance.now();
  const p = vega.parse(c);
  m('vega.parse', performance.now() - a);
  a = performance.now();
  const view = new vega.View(p, { renderer: 'none', logLevel: vega.None });
  const svg = await view.toSVG(2);
  view.finalize();
  m('View+toSVG', performance.now() - a);
  a = performance.now();
  const rv = new resvg.Resvg(svg, opts);
  m('new Resvg(parse+fonts)', performance.now() - a);
  a = performance.now();
  const img = rv.render();
  m('resvg.render', performance.now() - a);
  a = performance.now();
  void img.pixels;
  m('pixels copy', performance.now() - a);
  a = performance.now();
  const png = img.asPng();
  m('asPng', performance.now() - a);
  if (i === 0) console.log('png bytes asPng', png.length, 'svg chars', svg.length);
}
for (const [k, v] of Object.entries(T)) {
  const s = v.slice(4).sort((x, y) => x - y);
  console.log(k.padEnd(26), 'p50', (s[s.length >> 1] ?? 0).toFixed(1), 'ms');
}
console.log(`rss after 14 charts +${(rss() - r0).toFixed(0)} MB`);
