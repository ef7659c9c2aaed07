import { fileURLToPath } from 'node:url';
import type { TopLevelSpec } from 'vega-lite';
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
 *
 * Vega, Vega-Lite and resvg are loaded with the first chart, not with the bot: every role starts without them
 * (tens of megabytes and a second of loading), and a process that never draws a chart never pays for them.
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

async function load() {
  const [vega, vegaLite, resvg] = await Promise.all([
    import('vega'),
    import('vega-lite'),
    import('@resvg/resvg-js'),
  ]);
  return { vega, compile: vegaLite.compile, Resvg: resvg.Resvg };
}

let loading: ReturnType<typeof load> | undefined;

/** The rendering packages, loaded once (a load that failed is tried again by the next chart). */
function modules(): ReturnType<typeof load> {
  loading ??= load().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

/** The specification as SVG, at CHART_DENSITY. Vega reads no URL here: a chart's data is inline. */
async function chartSvg(spec: TopLevelSpec): Promise<string> {
  const { vega, compile } = await modules();
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none', logLevel: vega.None });
  try {
    return await view.toSVG(CHART_DENSITY);
  } finally {
    view.finalize();
  }
}

/** The specification as a PNG image. */
export async function renderChart(spec: TopLevelSpec): Promise<Buffer> {
  const svg = await chartSvg(spec);
  const { Resvg } = await modules();
  return new Resvg(svg, RESVG_OPTIONS).render().asPng();
}
