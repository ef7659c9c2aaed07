import fc from 'fast-check';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { type KeywordSeries, rankingsChartSpec } from '../../src/charts/rankings-chart.js';
import { renderChart } from '../../src/charts/render.js';

/**
 * Keyword names are the gateway's text: whatever they hold, the rankings chart that draws them renders. Through
 * the real renderer (Vega-Lite compiles the keywords' sort order into an expression, where a line or paragraph
 * separator once ended the line: "Unexpected token ILLEGAL").
 */

const DAY = 86_400_000;
const dates = Array.from({ length: 14 }, (_, i) =>
  new Date(Date.UTC(2026, 10, 1) + i * DAY).toISOString().slice(0, 10),
);

const HOSTILE = [
  '\u2028',
  '\u2029',
  '\u202E',
  '\u2066',
  '\u200F',
  '\u0000',
  '\n',
  '\r',
  '"',
  "'",
  '\\',
  '`',
  '${',
  '}',
  '<',
  '&',
  '<!channel>',
  '\uFEFF',
  '\uD83D\uDE00',
  'é',
];
const hostileText = fc
  .array(fc.oneof(fc.constantFrom(...HOSTILE), fc.string({ maxLength: 4 })), { minLength: 1, maxLength: 8 })
  .map((parts) => parts.join(''));

async function renders(keywords: string[]): Promise<{ width: number; height: number }> {
  const series: KeywordSeries[] = keywords.map((keyword, k) => ({
    keyword,
    points: dates.map((date, i) => ({ date, position: 1 + ((i + k * 3) % 30) })),
  }));
  const png = PNG.sync.read(
    await renderChart(
      rankingsChartSpec({ clientLabel: 'Test', from: dates[0] ?? '', to: dates.at(-1) ?? '', series }),
    ),
  );
  return { width: png.width, height: png.height };
}

describe('rankings chart with hostile keyword names', () => {
  it('renders a keyword holding a line or paragraph separator', async () => {
    expect(await renders(['emergency\u2028plumber', 'boiler\u2029repair'])).toEqual({
      width: 2400,
      height: 1200,
    });
  }, 30_000);

  it('renders whatever the keywords hold (property, through the renderer)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(hostileText, { minLength: 1, maxLength: 3 }), async (keywords) => {
        expect((await renders(keywords)).width).toBe(2400);
      }),
      { numRuns: 25, seed: 2028 },
    );
  }, 120_000);
});
