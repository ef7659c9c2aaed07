import { describe, expect, it } from 'vitest';
import type { Token } from '../../src/actions/token.js';
import { rankingsAltText } from '../../src/charts/alt-text.js';
import { chartLabel, SERIES_COLOURS } from '../../src/charts/chart-style.js';
import { type KeywordSeries, rankingsChartSpec } from '../../src/charts/rankings-chart.js';
import { moversLine, rankingsTrendSpec } from '../../src/charts/rankings-trend-chart.js';
import { monthsBetween, ReviewMonths } from '../../src/charts/review-months.js';
import { reviewsChartSpec } from '../../src/charts/reviews-chart.js';
import { parseChartArgs } from '../../src/commands/chart.js';
import { chartPeriod } from '../../src/reads/chart-period.js';
import { buildChartComment } from '../../src/views/chart-message.js';

/** The chart specifications as data: axes, the inverted position scale, series names, gaps. */

// biome-ignore lint/suspicious/noExplicitAny: a Vega-Lite specification is read as plain data here
type Spec = any;

const points = (positions: Array<number | null>, start = 1) =>
  positions.map((position, i) => ({ date: `2026-01-${String(start + i).padStart(2, '0')}`, position }));

const input = (series: KeywordSeries[]) => ({
  clientLabel: 'Acme',
  from: '2026-01-01',
  to: '2026-01-31',
  series,
});

describe('the rankings chart specification', () => {
  const spec: Spec = rankingsChartSpec(
    input([
      { keyword: 'plumber austin', points: points([5, 4, null, 3]) },
      { keyword: 'drain cleaning', points: points([40, 41], 3) },
      { keyword: 'lone', points: points([null, 7, null]) },
    ]),
  );
  const [line, dots] = spec.layer;

  it('draws positions over time with the axis turned over, #1 at the top', () => {
    expect(spec.width).toBe(1200);
    expect(spec.height).toBe(600);
    expect(line.mark.type).toBe('line');
    expect(line.encoding.x).toMatchObject({
      field: 'date',
      type: 'temporal',
      scale: { type: 'utc', domain: ['2026-01-01', '2026-01-31'] },
    });
    expect(line.encoding.y.field).toBe('position');
    expect(line.encoding.y.scale).toMatchObject({ reverse: true, zero: false });
    expect(line.encoding.y.scale.domain[0]).toBe(1);
    expect(line.encoding.y.axis.values[0]).toBe(1);
  });

  it('names every series in the legend, in order, each with its own colour', () => {
    expect(line.encoding.color.scale.domain).toEqual(['plumber austin', 'drain cleaning', 'lone']);
    expect(line.encoding.color.scale.range).toEqual(SERIES_COLOURS.slice(0, 3));
    expect(line.encoding.color.legend).not.toBeNull();
  });

  it('keeps a gap where a keyword was not ranked or had no row that day, and dots a lone position', () => {
    expect(line.mark.invalid).toBe('break-paths-show-domains');
    const rows = spec.data.values as Array<{
      keyword: string;
      date: string;
      position: number | null;
      dot: boolean;
    }>;
    const of = (k: string) => rows.filter((r) => r.keyword === k).map((r) => r.position);
    // Every keyword on every date any was tracked: 2026-01-01 to 2026-01-04.
    expect(of('plumber austin')).toEqual([5, 4, null, 3]);
    expect(of('drain cleaning')).toEqual([null, null, 40, 41]);
    expect(rows.filter((r) => r.dot).map((r) => [r.keyword, r.position])).toEqual([
      ['plumber austin', 3],
      ['lone', 7],
    ]);
    expect(dots.transform).toEqual([{ filter: 'datum.dot' }]);
  });

  it('draws ten keywords at most, dashes the last five, and tells apart names cut to the same label', () => {
    const long = 'x'.repeat(500);
    const many: Spec = rankingsChartSpec(
      input(
        Array.from({ length: 12 }, (_, i) => ({
          keyword: i < 2 ? `${long}${i}` : `kw ${i}`,
          points: points([i + 1]),
        })),
      ),
    );
    const labels = many.layer[0].encoding.color.scale.domain as string[];
    expect(labels).toHaveLength(10);
    expect(labels[0]).toHaveLength(60);
    expect(labels[1]).toBe(`${labels[0]} (2)`);
    const dashes = many.layer[0].encoding.strokeDash.scale.range as number[][];
    expect(dashes.slice(0, 5).every((d) => d[1] === 0)).toBe(true);
    expect(dashes.slice(5).every((d) => (d[1] ?? 0) > 0)).toBe(true);
  });

  it('draws a hostile name as plain text: no bidirectional controls, no line breaks, cut to fit', () => {
    expect(chartLabel('<!channel> \u202Eevil\u202C\nname')).toBe('<!channel> evil name');
    expect(chartLabel('y'.repeat(500))).toHaveLength(60);
    const alt = rankingsAltText(input([{ keyword: '<@U1> \u2066x', points: points([9, 3]) }]));
    expect(alt).toContain('<@U1> x: #9 to #3');
  });
});

describe('the reviews chart specification', () => {
  const months = new ReviewMonths();
  months.add({ created_at: '2026-01-05T10:00:00Z', rating: 5 });
  months.add({ created_at: '2026-01-06', rating: 1 });
  months.add({ created_at: '2026-03-01', rating: '4' });
  months.add({ created_at: '2026-03-02', rating: 'n/a' });
  months.add({ rating: 3 });
  const byMonth = months.between('2026-01-15', '2026-03-31');

  it('counts reviews by month and stars, a month without any as zeros, and averages them', () => {
    expect(byMonth).toEqual([
      { month: '2026-01', counts: [1, 0, 0, 0, 1], average: 3 },
      { month: '2026-02', counts: [0, 0, 0, 0, 0], average: null },
      { month: '2026-03', counts: [0, 0, 0, 1, 0], average: 4 },
    ]);
    expect(monthsBetween('2025-11-30', '2026-02-01')).toEqual(['2025-11', '2025-12', '2026-01', '2026-02']);
  });

  it('stacks bars by star rating and draws the average on its own 1–5 axis', () => {
    const spec: Spec = reviewsChartSpec({ clientLabel: 'Acme', months: byMonth });
    const [bars, average] = spec.layer;
    expect(bars.mark.type).toBe('bar');
    expect(bars.encoding.y.stack).toBe('zero');
    expect(bars.encoding.color.scale.domain).toEqual(['1★', '2★', '3★', '4★', '5★']);
    expect(bars.data.values).toHaveLength(15);
    expect(average.mark.type).toBe('line');
    expect(average.encoding.y.scale.domain).toEqual([1, 5]);
    expect(average.data.values).toEqual([
      { month: '2026-01', average: 3 },
      { month: '2026-03', average: 4 },
    ]);
    expect(spec.resolve.scale.y).toBe('independent');
  });
});

describe('the rankings trend chart specification', () => {
  const weeks = Array.from({ length: 14 }, (_, i) => ({
    week: `2026-01-${String(1 + i).padStart(2, '0')}`,
    averagePosition: i === 13 ? null : 20 - i,
    top3: i,
    top10: 2 * i,
    ranked: 30,
  }));
  const spec: Spec = rankingsTrendSpec({
    clientLabel: 'Acme',
    weeks,
    movers: ['a', '<b>', 'c', 'd', 'e', 'f'],
  });

  it('draws the last 12 weeks: top-3 and top-10 counts as bars, the average position on an inverted axis', () => {
    const [bars, line] = spec.layer;
    expect(bars.encoding.x.sort).toEqual(weeks.slice(-12).map((w) => w.week));
    expect(bars.data.values).toHaveLength(24);
    expect(line.encoding.y.scale.reverse).toBe(true);
    expect(line.encoding.y.axis.orient).toBe('right');
    // A week with no position has no point on the line.
    expect(line.data.values).toHaveLength(11);
  });

  it('names the movers in the subtitle, the first five', () => {
    expect(spec.title.subtitle).toBe('Movers: a, <b>, c, d, e and 1 more');
    expect(moversLine([])).toBe('No keyword moved much');
  });
});

describe('chart arguments, period and summary line', () => {
  const w = (value: string): Token => ({ kind: 'word', value });
  const p = (name: string, value: string): Token => ({ kind: 'pair', name, value });

  it('reads the kind, keywords and period, and refuses what a chart does not take', () => {
    expect(parseChartArgs([w('Ranking'), w('plumber austin'), p('from', '2026-01-01')])).toEqual({
      kind: 'rankings',
      keywords: ['plumber austin'],
      from: '2026-01-01',
    });
    expect(() => parseChartArgs([w('backlinks')])).toThrow('Which chart?');
    expect(() => parseChartArgs([w('reviews'), w('x')])).toThrow('takes no keywords');
    expect(() => parseChartArgs([w('rankings'), p('limit', '5')])).toThrow('not a chart option');
    expect(() =>
      parseChartArgs([w('rankings'), ...Array.from({ length: 11 }, (_, i) => w(`k${i}`))]),
    ).toThrow('at most 10 keywords');
  });

  it('defaults to the last 90 days of rankings and 12 months of reviews, and checks given dates', () => {
    const now = Date.parse('2026-11-28T10:00:00Z');
    expect(chartPeriod('rankings', {}, now, 'u')).toEqual({ from: '2026-08-31', to: '2026-11-28' });
    expect(chartPeriod('reviews', {}, now, 'u')).toEqual({ from: '2025-12-01', to: '2026-11-28' });
    expect(() => chartPeriod('rankings', { from: '2026-02-30' }, now, 'u')).toThrow('YYYY-MM-DD');
    expect(() => chartPeriod('rankings', { from: '2026-11-01', to: '2026-10-01' }, now, 'u')).toThrow(
      'is after',
    );
    expect(() => chartPeriod('rankings', { from: '2024-01-01' }, now, 'u')).toThrow('too long');
  });

  it('writes the summary line with gateway text escaped and the requester named', () => {
    const line = buildChartComment(
      {
        kind: 'rankings',
        clientLabel: 'A & B',
        from: '2026-01-01',
        to: '2026-01-31',
        keywords: [
          { keyword: '<!here> x', first: 9, last: 3, points: [] },
          { keyword: 'y', first: 2, last: 5, points: [] },
        ],
        missing: ['<@U9>'],
      },
      'U1',
    );
    expect(line).toBe(
      ':chart_with_upwards_trend: Rankings of 2 keywords for A &amp; B, 2026-01-01 to 2026-01-31 · 1 up, 1 down, 0 level · best now *&lt;!here&gt; x* #3 · not tracked: &lt;@U9&gt; · asked by <@U1>',
    );
  });
});
