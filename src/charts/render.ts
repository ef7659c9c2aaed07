import { fileURLToPath } from 'node:url';
import { Resvg } from '@resvg/resvg-js';
import { None, parse, View } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { CHART_FONT } from './chart-style.js';

/**
 * The one renderer: a Vega-Lite specification → Vega → SVG (on the server, no browser, no canvas) → PNG by
 * resvg, with the one font shipped in the `dejavu-fonts-ttf` package and no system fonts, so a chart is the
 * same on every machine.
 *
 * resvg draws and encodes on the event loop (about a tenth of a second a chart on an idle core; charts are cached
 * per day). Its thread-pool form (`renderAsync`) kept the loop free but measured three to five times the memory
 * (a 12 MB pixmap per chart left in each pool thread's allocator until a GC), as did copying the pixels out to
 * deflate them here: bench/chart.ts.
 */

/** Pixels per CSS pixel: Slack shows the image sharp on high-density screens and still sharp when scaled down. */
const CHART_DENSITY = 2;

const FONT_FILE = fileURLToPath(import.meta.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf'));
const RESVG_OPTIONS = {
  font: {
    fontFiles: [FONT_FILE],
    loadSystemFonts: false,
    defaultFontFamily: CHART_FONT,
    sansSerifFamily: CHART_FONT,
  },
  background: '#FFFFFF',
  logLevel: 'off' as const,
};

/** The specification as SVG, at CHART_DENSITY. Vega reads no URL here: a chart's data is inline. */
async function chartSvg(spec: TopLevelSpec): Promise<string> {
  const view = new View(parse(compile(spec).spec), { renderer: 'none', logLevel: None });
  try {
    return await view.toSVG(CHART_DENSITY);
  } finally {
    view.finalize();
  }
}

/** The specification as a PNG image. */
export async function renderChart(spec: TopLevelSpec): Promise<Buffer> {
  const svg = await chartSvg(spec);
  return new Resvg(svg, RESVG_OPTIONS).render().asPng();
}
