import { PNG } from 'pngjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { SERIES_COLOURS, STAR_COLOURS } from '../../src/charts/chart-style.js';
import { type KeywordSeries, rankingsChartSpec } from '../../src/charts/rankings-chart.js';
import { rankingsTrendSpec } from '../../src/charts/rankings-trend-chart.js';
import { renderChart } from '../../src/charts/render.js';
import { ReviewMonths } from '../../src/charts/review-months.js';
import { reviewsChartSpec } from '../../src/charts/reviews-chart.js';

/**
 * The renderer's PNG, decoded: its size, that it is not blank, and each series' colour where the data puts it
 * (a keyword at #1 at the top of the plot, one at #50 at the bottom, one tracked only in the first half on the
 * left, one with a gap in the middle broken there), and in the legend.
 */

const DAY = 86_400_000;
const dates = Array.from({ length: 60 }, (_, i) =>
  new Date(Date.UTC(2026, 0, 1) + i * DAY).toISOString().slice(0, 10),
);
const series: KeywordSeries[] = [
  { keyword: 'always first', points: dates.map((date) => ({ date, position: 1 })) },
  { keyword: 'always fiftieth', points: dates.map((date) => ({ date, position: 50 })) },
  { keyword: 'first half only', points: dates.slice(0, 30).map((date) => ({ date, position: 20 })) },
  {
    keyword: 'gap in the middle',
    points: dates.map((date, i) => ({ date, position: i >= 27 && i <= 33 ? null : 35 })),
  },
];

type Image = { width: number; height: number; data: Buffer };

const rgb = (hex: string) => [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));

/** Pixels of exactly `hex` (a line's or a symbol's inside, past the anti-aliased edge) within a box of fractions. */
function pixels(png: Image, hex: string, box = { x0: 0, x1: 1, y0: 0, y1: 1 }): Array<[number, number]> {
  const [r, g, b] = rgb(hex);
  const found: Array<[number, number]> = [];
  for (let y = Math.floor(box.y0 * png.height); y < Math.floor(box.y1 * png.height); y++) {
    for (let x = Math.floor(box.x0 * png.width); x < Math.floor(box.x1 * png.width); x++) {
      const i = (y * png.width + x) * 4;
      if (png.data[i] === r && png.data[i + 1] === g && png.data[i + 2] === b) found.push([x, y]);
    }
  }
  return found;
}

/** The plot's x extent: the row where the always-first line (it spans every date) has the most pixels. */
function plotSpan(png: Image): { left: number; right: number } {
  const rows = new Map<number, number[]>();
  for (const [x, y] of pixels(png, SERIES_COLOURS[0])) rows.set(y, [...(rows.get(y) ?? []), x]);
  const xs = [...rows.values()].sort((a, b) => b.length - a.length)[0] ?? [];
  return { left: Math.min(...xs), right: Math.max(...xs) };
}

describe('the chart renderer', () => {
  let png: Image;
  beforeAll(async () => {
    const bytes = await renderChart(
      rankingsChartSpec({ clientLabel: 'Test client', from: dates[0] ?? '', to: dates.at(-1) ?? '', series }),
    );
    png = PNG.sync.read(bytes);
  }, 30_000);

  it('draws 1200×600 at twice the density, on white, not blank', () => {
    expect([png.width, png.height]).toEqual([2400, 1200]);
    const white = pixels(png, '#FFFFFF').length;
    expect(white / (png.width * png.height)).toBeGreaterThan(0.5);
    expect(white / (png.width * png.height)).toBeLessThan(0.98);
  });

  it('puts #1 at the top of the plot and #50 at the bottom', () => {
    const plot = { x0: 0, x1: 0.6, y0: 0, y1: 1 };
    const ys = (hex: string) => pixels(png, hex, plot).map(([, y]) => y);
    const first = ys(SERIES_COLOURS[0]);
    const fiftieth = ys(SERIES_COLOURS[1]);
    expect(first.length).toBeGreaterThan(1_000);
    expect(fiftieth.length).toBeGreaterThan(1_000);
    expect(Math.max(...first)).toBeLessThan(0.25 * png.height);
    expect(Math.min(...fiftieth)).toBeGreaterThan(0.75 * png.height);
  });

  it('draws a keyword only where it was tracked, and breaks a line where it was not ranked', () => {
    const { left, right } = plotSpan(png);
    const middle = (left + right) / 2;
    const plot = { x0: 0, x1: (right + 1) / png.width, y0: 0, y1: 1 };
    const half = pixels(png, SERIES_COLOURS[2], plot).map(([x]) => x);
    expect(half.length).toBeGreaterThan(500);
    expect(Math.max(...half)).toBeLessThan(middle);
    const gap = pixels(png, SERIES_COLOURS[3], plot).map(([x]) => x);
    const step = (right - left) / (dates.length - 1);
    expect(gap.some((x) => x < middle - 4 * step)).toBe(true);
    expect(gap.some((x) => x > middle + 4 * step)).toBe(true);
    // Days 27 to 33 of 0 to 59 were not ranked: nothing is drawn over them.
    const gapMiddle = left + 30 * step;
    expect(gap.filter((x) => Math.abs(x - gapMiddle) < 2 * step)).toEqual([]);
  });

  it('shows each keyword in the legend, right of the plot, in its colour', () => {
    const { right } = plotSpan(png);
    for (const colour of SERIES_COLOURS.slice(0, 4)) {
      const legend = pixels(png, colour, { x0: (right + 40) / png.width, x1: 1, y0: 0, y1: 1 });
      expect(legend.length).toBeGreaterThan(40);
    }
  });

  it('draws the reviews chart with each star rating’s colour and the trend chart, both at full size', async () => {
    const months = new ReviewMonths();
    for (let i = 0; i < 200; i++) months.add({ created_at: `2026-0${1 + (i % 6)}-10`, rating: 1 + (i % 5) });
    const reviews = PNG.sync.read(
      await renderChart(
        reviewsChartSpec({ clientLabel: 'Test', months: months.between('2026-01-01', '2026-06-30') }),
      ),
    );
    expect([reviews.width, reviews.height]).toEqual([2400, 1200]);
    for (const colour of STAR_COLOURS) expect(pixels(reviews, colour).length).toBeGreaterThan(1_000);
    const weeks = Array.from({ length: 14 }, (_, i) => ({
      week: new Date(Date.UTC(2026, 0, 5) + i * 7 * DAY).toISOString().slice(0, 10),
      averagePosition: 30 - i,
      top3: i,
      top10: 2 * i,
      ranked: 40,
    }));
    const trend = PNG.sync.read(
      await renderChart(rankingsTrendSpec({ clientLabel: 'Test', weeks, movers: ['a'] })),
    );
    expect([trend.width, trend.height]).toEqual([2400, 1200]);
    expect(pixels(trend, '#0072B2').length).toBeGreaterThan(1_000);
  }, 30_000);

  it('keeps the trend chart’s plot its full width when the movers line is as long as it gets', async () => {
    const weeks = Array.from({ length: 12 }, (_, i) => ({
      week: new Date(Date.UTC(2026, 8, 7) + i * 7 * DAY).toISOString().slice(0, 10),
      averagePosition: 30 - i,
      top3: 2 + i,
      top10: 5 + 2 * i,
      ranked: 40,
    }));
    // Five names at the 32 characters a mover is cut to, and more beyond them.
    const movers = Array.from(
      { length: 9 },
      (_, i) => `emergency water heater repair ${String(i).padStart(2, '0')}`,
    );
    const trend = PNG.sync.read(
      await renderChart(rankingsTrendSpec({ clientLabel: 'Acme Plumbing', weeks, movers })),
    );
    const bars = pixels(trend, '#0072B2');
    expect(bars.length).toBeGreaterThan(5_000);
    const xs = bars.map(([x]) => x);
    const span = xs.reduce((a, x) => Math.max(a, x), 0) - xs.reduce((a, x) => Math.min(a, x), trend.width);
    // The twelve weeks' bars spread over most of the picture, not squeezed into a sliver beside the subtitle.
    expect(span).toBeGreaterThan(trend.width * 0.6);
  }, 30_000);
});
