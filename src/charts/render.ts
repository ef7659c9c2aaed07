import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { TopLevelSpec } from 'vega-lite';
import { CHART_FONT } from './chart-style.js';

/**
 * The one renderer: a Vega-Lite specification → Vega → SVG (on the server, no browser, no canvas) → PNG, drawn by
 * resvg with the one font shipped in the `dejavu-fonts-ttf` package and no system fonts, so a chart is the same on
 * every machine.
 *
 * It all runs in one worker thread of its own, started with the first chart:
 * - The event loop stays free: a chart is a fifth of a second of drawing and encoding (more on a busy machine).
 * - A process that draws no chart never loads Vega, Vega-Lite and resvg (tens of megabytes), and the thread is
 *   stopped after IDLE_MS without a chart, which hands all of it back; it is also replaced after RECYCLE_AFTER
 *   charts, which hands back whatever resvg's allocator kept.
 * - resvg (pinned at 2.6) frees a drawing's 12 MB of pixels only when V8 collects the object that holds them, in a
 *   full collection, and V8 does not know they are there, so pixels wait for the next one: bench/chart.ts's 24
 *   charts back to back add about +165 MB, as on the event loop before. Capping the thread's old generation
 *   (maxOldGenerationSizeMb: 96) brought that to +95 MB, but V8 then collected in full so often that a chart
 *   took twice as long (p50 320–440 ms against 170–200 on the same machine, helper threads competing for the two
 *   cores); a collection forced after every chart cost more still. The young generation is kept small
 *   (THREAD_LIMITS): without that the figure was +200 MB.
 * - The thread runs from source text (rendererThread below, with the function it calls), not from a file, so it
 *   needs no TypeScript loader in development and is the same code in dist/.
 *
 * The PNG is encoded here from resvg's pixels with Node's zlib at level 1, rows unfiltered: resvg's own encoder
 * (adaptive filters, default level, and a demultiplied copy of the image first) took twice as long for a file of
 * about the same size (255 KB against 273 KB for the bench's chart).
 */

/** Pixels per CSS pixel: Slack shows the image sharp on high-density screens and still sharp when scaled down. */
const CHART_DENSITY = 2;
/** Charts a thread draws before it is replaced (its native memory and heap handed back). */
const RECYCLE_AFTER = 40;
/** A thread with no chart to draw for this long is stopped. */
const IDLE_MS = 120_000;
/** The thread's V8 heap: a small young generation (see above); the old one is left to V8. */
const THREAD_LIMITS = { maxYoungGenerationSizeMb: 2 };

/** What the thread needs, resolved here (the thread runs from source text, with nothing to resolve against). */
interface ThreadData {
  vega: string;
  vegaLite: string;
  resvg: string;
  density: number;
  resvgOptions: {
    font: { fontFiles: string[]; loadSystemFonts: false; defaultFontFamily: string; sansSerifFamily: string };
    background: string;
    logLevel: 'off';
  };
}

type Reply = { id: number; png: Uint8Array } | { id: number; error: string };

/**
 * A PNG of RGBA rows, each unfiltered, from pixels that are all opaque (the white background makes them so: resvg's
 * pixels are premultiplied, the same as straight ones when opaque). Rows are deflated in bands through one stream,
 * so no second copy of the image is made.
 */
async function encodePng(zlib: typeof import('node:zlib'), pixels: Buffer, width: number, height: number) {
  const row = width * 4;
  const bandRows = 64;
  const deflate = zlib.createDeflate({ level: 1 });
  const compressed: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => compressed.push(chunk));
  const ended = new Promise((resolve, reject) => deflate.on('end', resolve).on('error', reject));
  for (let top = 0; top < height; top += bandRows) {
    const rows = Math.min(bandRows, height - top);
    const band = Buffer.allocUnsafe(rows * (row + 1));
    for (let y = 0; y < rows; y++) {
      band[y * (row + 1)] = 0;
      pixels.copy(band, y * (row + 1) + 1, (top + y) * row, (top + y + 1) * row);
    }
    await new Promise((resolve) => deflate.write(band, resolve));
  }
  deflate.end();
  await ended;
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, 'latin1');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(data, zlib.crc32(type)), 0);
    return [head, data, crc];
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 6, 0, 0, 0], 8); // 8 bits a channel, RGBA, deflate, adaptive filtering (all None), no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    ...chunk('IHDR', header),
    ...chunk('IDAT', Buffer.concat(compressed)),
    ...chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** The thread: loads the rendering packages once, then draws each specification it is sent. */
async function rendererThread(load: (specifier: string) => Promise<unknown>): Promise<void> {
  const { parentPort, workerData } = (await load(
    'node:worker_threads',
  )) as typeof import('node:worker_threads');
  const zlib = (await load('node:zlib')) as typeof import('node:zlib');
  const data = workerData as ThreadData;
  const [vega, vegaLite, resvg] = (await Promise.all([
    load(data.vega),
    load(data.vegaLite),
    load(data.resvg),
  ])) as [typeof import('vega'), typeof import('vega-lite'), typeof import('@resvg/resvg-js')];
  const draw = async (spec: TopLevelSpec): Promise<Buffer> => {
    const parsed = vega.parse(vegaLite.compile(spec).spec);
    const view = new vega.View(parsed, { renderer: 'none', logLevel: vega.None });
    let svg: string;
    try {
      svg = await view.toSVG(data.density);
    } finally {
      view.finalize();
    }
    const image = new resvg.Resvg(svg, data.resvgOptions).render();
    return encodePng(zlib, image.pixels, image.width, image.height);
  };
  parentPort?.on('message', async ({ id, spec }: { id: number; spec: TopLevelSpec }) => {
    try {
      const png = await draw(spec);
      // The bytes move to the caller's thread, not copied (a Buffer sharing a pooled block is copied instead).
      const own = png.byteOffset === 0 && png.byteLength === png.buffer.byteLength;
      parentPort.postMessage({ id, png } satisfies Reply, own ? [png.buffer as ArrayBuffer] : []);
    } catch (error) {
      parentPort.postMessage({
        id,
        error: error instanceof Error ? error.message : String(error),
      } satisfies Reply);
    }
  });
}

/**
 * The thread's source text. `__name` is what a TypeScript loader that keeps function names (tsx) wraps functions
 * in, and `import()` is passed in as written here, since a test runner rewrites it in a module's own functions;
 * in dist/ neither changes anything.
 */
function threadSource(): string {
  return [
    'const __name = (f) => f;',
    encodePng.toString(),
    rendererThread.toString(),
    'rendererThread((specifier) => import(specifier));',
  ].join('\n');
}

/**
 * The font files: the core cut of DejaVu Sans first (scripts/chart-font.mjs says why), then the whole font for any
 * character outside it. Without the core file (a build that left it out) charts are the same, only slower.
 */
function fontFiles(): string[] {
  const core = fileURLToPath(new URL('./fonts/DejaVuSans-core.ttf', import.meta.url));
  const full = fileURLToPath(import.meta.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf'));
  return existsSync(core) ? [core, full] : [full];
}

function threadData(): ThreadData {
  return {
    vega: import.meta.resolve('vega'),
    vegaLite: import.meta.resolve('vega-lite'),
    resvg: import.meta.resolve('@resvg/resvg-js'),
    density: CHART_DENSITY,
    resvgOptions: {
      font: {
        fontFiles: fontFiles(),
        loadSystemFonts: false,
        defaultFontFamily: CHART_FONT,
        sansSerifFamily: CHART_FONT,
      },
      background: '#FFFFFF',
      logLevel: 'off',
    },
  };
}

interface Job {
  resolve: (png: Buffer) => void;
  reject: (error: Error) => void;
}

/** One renderer thread and the charts it has been asked for. */
class RendererThread {
  private readonly worker: Worker;
  private readonly jobs = new Map<number, Job>();
  private nextId = 0;
  private idle: NodeJS.Timeout | undefined;
  /** Charts asked of this thread; past RECYCLE_AFTER it takes no more. */
  asked = 0;
  stopped = false;

  constructor() {
    this.worker = new Worker(threadSource(), {
      eval: true,
      execArgv: [],
      workerData: threadData(),
      resourceLimits: THREAD_LIMITS,
    });
    // A thread with no chart to draw keeps no process alive (a chart being drawn does: see draw).
    this.worker.unref();
    this.worker.on('message', (reply: Reply) => this.settle(reply));
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', (code) => this.fail(new Error(`the chart renderer stopped (exit code ${code})`)));
  }

  draw(spec: TopLevelSpec): Promise<Buffer> {
    this.asked++;
    clearTimeout(this.idle);
    const id = this.nextId++;
    this.worker.ref();
    this.worker.postMessage({ id, spec });
    return new Promise((resolve, reject) => this.jobs.set(id, { resolve, reject }));
  }

  private settle(reply: Reply): void {
    const job = this.jobs.get(reply.id);
    this.jobs.delete(reply.id);
    if ('error' in reply) job?.reject(new Error(`the chart could not be drawn: ${reply.error}`));
    else job?.resolve(Buffer.from(reply.png.buffer, reply.png.byteOffset, reply.png.byteLength));
    if (this.jobs.size > 0) return;
    this.worker.unref();
    if (this.asked >= RECYCLE_AFTER) this.stop();
    else this.idle = setTimeout(() => this.stop(), IDLE_MS).unref();
  }

  private fail(error: Error): void {
    this.stopped = true;
    for (const job of this.jobs.values()) job.reject(error);
    this.jobs.clear();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.idle);
    void this.worker.terminate();
  }
}

let current: RendererThread | undefined;

/** The specification as a PNG image, drawn in the renderer thread (started, or replaced, as needed). */
export function renderChart(spec: TopLevelSpec): Promise<Buffer> {
  if (!current || current.stopped || current.asked >= RECYCLE_AFTER) current = new RendererThread();
  return current.draw(spec);
}
