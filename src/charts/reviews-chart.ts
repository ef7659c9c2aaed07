import type { TopLevelSpec } from 'vega-lite';
import { chartFrame, STAR_COLOURS } from './chart-style.js';
import type { ReviewMonth } from './review-months.js';

/** Reviews per month, stacked by star rating, with the month's average rating as a line on its own axis. */

export interface ReviewsChartInput {
  clientLabel: string;
  /** Oldest first; months with no review are included (as zeros) so the axis has no holes. */
  months: readonly ReviewMonth[];
}

const STARS = ['1★', '2★', '3★', '4★', '5★'];

/** Months across, in order, named like `Mar '26`. */
function monthAxis(months: readonly ReviewMonth[]) {
  return {
    field: 'month',
    type: 'ordinal' as const,
    title: null,
    sort: months.map((m) => m.month),
    axis: {
      labelAngle: 0,
      labelOverlap: true,
      labelExpr: 'utcFormat(toDate(datum.value + "-01T00:00:00Z"), "%b \'%y")',
    },
  };
}

/** The Vega-Lite specification of a reviews chart. */
export function reviewsChartSpec(input: ReviewsChartInput): TopLevelSpec {
  const bars = input.months.flatMap((m) =>
    m.counts.map((count, i) => ({ month: m.month, stars: STARS[i], order: i, count })),
  );
  const averages = input.months
    .filter((m) => m.average !== null)
    .map((m) => ({ month: m.month, average: m.average }));
  const total = input.months.reduce((sum, m) => sum + m.counts.reduce((a, b) => a + b, 0), 0);
  const x = monthAxis(input.months);
  return {
    ...chartFrame(
      `Reviews · ${input.clientLabel}`,
      `${total.toLocaleString('en-US')} review${total === 1 ? '' : 's'} by month and star rating; the line is the month's average rating`,
    ),
    layer: [
      {
        data: { values: bars },
        mark: { type: 'bar', width: { band: 0.8 } },
        encoding: {
          x,
          y: {
            field: 'count',
            type: 'quantitative',
            stack: 'zero',
            title: 'Reviews',
            axis: { tickMinStep: 1 },
          },
          color: {
            field: 'stars',
            type: 'nominal',
            title: 'Rating',
            scale: { domain: STARS, range: [...STAR_COLOURS] },
            legend: { orient: 'right', symbolType: 'square' },
          },
          order: { field: 'order', type: 'quantitative' },
        },
      },
      {
        data: { values: averages },
        mark: {
          type: 'line',
          color: '#000000',
          strokeWidth: 4,
          point: { filled: true, size: 160, color: '#000000' },
        },
        encoding: {
          x,
          y: {
            field: 'average',
            type: 'quantitative',
            title: 'Average rating',
            scale: { domain: [1, 5] },
            axis: { orient: 'right', values: [1, 2, 3, 4, 5], grid: false },
          },
        },
      },
    ],
    resolve: { scale: { y: 'independent' } },
  };
}
