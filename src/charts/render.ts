import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { crc32, deflate } from 'node:zlib';
import { renderAsync } from '@resvg/resvg-js';
import { None, parse, View } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { CHART_FONT } from './chart-style.js';

/**
 * The one renderer: a Vega-Lite specification → Vega → SVG (on the server, no browser, no canvas) → PNG by
 * resvg, with the one font shipped in the `dejavu-fonts-ttf` package and no system fonts, so a chart is the
 * same on every machine. resvg rasterises on libuv's thread pool and the PNG is deflated there too: the event
 * loop (which acks Slack) only runs Vega and copies rows.
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

const deflateAsync = promisify(deflate);

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
  const image = await renderAsync(svg, RESVG_OPTIONS);
  return encodePng(image.width, image.height, image.pixels);
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const tail = Buffer.alloc(4);
  tail.writeUInt32BE(crc32(data, crc32(head.subarray(4))), 0);
  return Buffer.concat([head, data, tail]);
}

/**
 * RGBA pixels as a PNG (8-bit RGBA, no row filter). resvg's own encoder runs on the event loop and spends about
 * half a chart's time at its highest compression; this deflates off the loop at a level that keeps a chart
 * within a few hundred kilobytes.
 */
async function encodePng(width: number, height: number, rgba: Buffer): Promise<Buffer> {
  const stride = width * 4;
  const rows = Buffer.allocUnsafe((stride + 1) * height);
  for (let y = 0; y < height; y++) {
    const at = y * (stride + 1);
    rows[at] = 0;
    rgba.copy(rows, at + 1, y * stride, (y + 1) * stride);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 6, 0, 0, 0], 8);
  const data = await deflateAsync(rows, { level: 3 });
  return Buffer.concat([
    PNG_SIGNATURE,
    chunk('IHDR', header),
    chunk('IDAT', data),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
