/**
 * Where one 10 × 90 rankings chart's time goes, stage by stage, on the main thread (the renderer thread runs the
 * same calls): Vega-Lite's compile, Vega's parse and SVG, resvg's set-up (its font database) and drawing, the
 * pixels read out, and resvg's own PNG encoder for comparison. resvg's set-up and drawing are timed side by side
 * with the fonts render.ts gives it: the core cut alone (a chart with no other character) and the core cut with
 * the whole font (one that has some).
 *
 * Run: npx tsx bench/chart-stages.ts
 */
import { fileURLToPath } from 'node:url';
import type { ResvgRenderOptions } from '@resvg/resvg-js';
import { CHART_FONT } from '../src/charts/chart-style.js';
import { rankingsChartSpec } from '../src/charts/index.js';
import { median } from './bench-child.js';
import { tenByNinety } from './chart.js';
import { runIfMain } from './run-if-main.js';

const ROUNDS = 14;
/** The first rounds warm up (module code, resvg's allocator) and are not counted. */
const WARM_UP = 4;
const CORE = fileURLToPath(new URL('../src/charts/fonts/DejaVuSans-core.ttf', import.meta.url));
const FULL = fileURLToPath(import.meta.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf'));

const options = (fontFiles: string[]): ResvgRenderOptions => ({
  font: { fontFiles, loadSystemFonts: false, defaultFontFamily: CHART_FONT, sansSerifFamily: CHART_FONT },
  background: '#FFFFFF',
  logLevel: 'off',
});

export async function main(): Promise<Record<string, number>> {
  const [vega, vegaLite, resvg] = await Promise.all([
    import('vega'),
    import('vega-lite'),
    import('@resvg/resvg-js'),
  ]);
  const spec = rankingsChartSpec({
    clientLabel: 'Acme Plumbing & Heating',
    from: '2026-01-01',
    to: '2026-03-31',
    series: tenByNinety(),
  });
  const times: Record<string, number[]> = {};
  const time = async <T>(stage: string, round: number, work: () => T | Promise<T>): Promise<T> => {
    const started = performance.now();
    const value = await work();
    if (round < WARM_UP) return value;
    const list = times[stage] ?? [];
    list.push(performance.now() - started);
    times[stage] = list;
    return value;
  };
  const fonts = { 'core font': options([CORE]), 'core + whole font': options([CORE, FULL]) };
  for (let round = 0; round < ROUNDS; round++) {
    const compiled = await time('Vega-Lite compile', round, () => vegaLite.compile(spec).spec);
    const parsed = await time('Vega parse', round, () => vega.parse(compiled));
    const svg = await time('Vega View and SVG', round, async () => {
      const view = new vega.View(parsed, { renderer: 'none', logLevel: vega.None });
      try {
        return await view.toSVG(2);
      } finally {
        view.finalize();
      }
    });
    for (const [name, opts] of Object.entries(fonts)) {
      const drawing = await time(`resvg set-up, ${name}`, round, () => new resvg.Resvg(svg, opts));
      const image = await time(`resvg drawing, ${name}`, round, () => drawing.render());
      if (name !== 'core font') continue;
      await time('pixels read out', round, () => image.pixels);
      await time("resvg's own PNG encoder", round, () => image.asPng());
    }
  }
  const p50s = Object.fromEntries(Object.entries(times).map(([stage, ms]) => [stage, median(ms)]));
  for (const [stage, ms] of Object.entries(p50s)) console.log(`${stage.padEnd(34)} p50 ${ms.toFixed(1)} ms`);
  return p50s;
}

runIfMain(import.meta.url, main);
