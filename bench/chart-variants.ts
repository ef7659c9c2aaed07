/** resvg font options compared on one chart SVG: the core font alone, with the whole font, the whole font alone. Run: npx tsx bench/chart-variants.ts */
import { fileURLToPath } from 'node:url';
import { CHART_FONT } from '../src/charts/chart-style.js';
import { rankingsChartSpec } from '../src/charts/index.js';

const vega = await import('vega');
const vl = await import('vega-lite');
const resvg = await import('@resvg/resvg-js');
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
const core = '../src/charts/fonts/DejaVuSans-core.ttf',
  full = fileURLToPath(import.meta.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf'));
const view = new vega.View(vega.parse(vl.compile(spec).spec), {
  renderer: 'none',
  logLevel: vega.None,
});
const svg = await view.toSVG(2);
view.finalize();
const base = { loadSystemFonts: false, defaultFontFamily: CHART_FONT, sansSerifFamily: CHART_FONT };
const variants: Record<string, import('@resvg/resvg-js').ResvgRenderOptions> = {
  both: { font: { ...base, fontFiles: [core, full] } },
  coreOnly: { font: { ...base, fontFiles: [core] } },
  fullOnly: { font: { ...base, fontFiles: [full] } },
  textSpeed: { font: { ...base, fontFiles: [core, full] }, textRendering: 0 },
};
for (const [name, o] of Object.entries(variants)) {
  const ts: number[] = [];
  const rs: number[] = [];
  for (let i = 0; i < 8; i++) {
    let a = performance.now();
    const r = new resvg.Resvg(svg, { ...o, background: '#FFFFFF', logLevel: 'off' });
    ts.push(performance.now() - a);
    a = performance.now();
    r.render();
    rs.push(performance.now() - a);
  }
  ts.sort((x, y) => x - y);
  rs.sort((x, y) => x - y);
  console.log(
    name.padEnd(10),
    'new Resvg p50',
    (ts[4] ?? 0).toFixed(1),
    'render p50',
    (rs[4] ?? 0).toFixed(1),
  );
}
