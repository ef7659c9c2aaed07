import type { Config, TopLevelSpec } from 'vega-lite';
import { stripBidi } from '../views/escape.js';

/**
 * charts/ builds chart specifications (Vega-Lite) from data, as views/ builds Block Kit: pure functions, no I/O.
 * render.ts alone turns a specification into a PNG. What every chart shares lives here: its size, its font and
 * text sizes (read at Slack's preview, about a third of full size), and colour-blind-safe colours.
 */

/** A chart's size in CSS pixels; render.ts draws it at twice that density. */
const CHART_WIDTH = 1200;
const CHART_HEIGHT = 600;
/** The one font a chart is drawn in (shipped in an npm package, so a chart looks the same everywhere). */
export const CHART_FONT = 'DejaVu Sans';

/**
 * Ten colours for ten lines, safe for the common colour-vision deficiencies: Paul Tol's "muted" set and black.
 * Lines past the fifth are also dashed, so no two series depend on colour alone.
 */
export const SERIES_COLOURS = [
  '#332288',
  '#CC6677',
  '#117733',
  '#88CCEE',
  '#882255',
  '#44AA99',
  '#999933',
  '#AA4499',
  '#DDCC77',
  '#000000',
] as const;
export const SERIES_DASHES: readonly number[][] = [
  [1, 0],
  [1, 0],
  [1, 0],
  [1, 0],
  [1, 0],
  [12, 6],
  [12, 6],
  [12, 6],
  [12, 6],
  [12, 6],
];

/** One to five stars, from Okabe and Ito's palette: warm for bad, blue for good, grey between. */
export const STAR_COLOURS = ['#D55E00', '#E69F00', '#BBBBBB', '#56B4E9', '#0072B2'] as const;

/** The longest label drawn; a longer keyword is cut with an ellipsis (the numbers behind the chart keep it whole). */
const MAX_LABEL = 60;

/**
 * Gateway text as a chart label: drawn as text whatever it holds (a `<@U1>` is just characters in an image),
 * without bidirectional controls (they would reorder what follows them), other control characters or line and
 * paragraph separators (U+2028/U+2029: Vega-Lite compiles labels into expressions, where they end the line and
 * the chart fails to compile), on one line, and cut to a length a legend can show.
 */
export function chartLabel(text: string, max = MAX_LABEL): string {
  const clean = stripBidi(text)
    .replace(/[\p{Cc}\p{Zl}\p{Zp}\u200E\u200F]+/gu, ' ')
    .trim();
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

/** #1, then round steps down to the worst position shown: the top of a position axis always says #1. */
export function positionTicks(worst: number): number[] {
  const step = worst <= 20 ? 5 : worst <= 60 ? 10 : worst <= 120 ? 20 : 50;
  const ticks = [1];
  for (let t = step; t <= worst; t += step) ticks.push(t);
  return ticks;
}

/** The look every chart shares: large text, a white background, light grid lines. */
const CHART_CONFIG: Config = {
  font: CHART_FONT,
  background: '#FFFFFF',
  padding: 16,
  view: { stroke: null },
  title: {
    fontSize: 28,
    fontWeight: 'bold',
    anchor: 'start',
    subtitleFontSize: 19,
    subtitleColor: '#444444',
    offset: 14,
  },
  axis: {
    labelFontSize: 19,
    titleFontSize: 19,
    titleFontWeight: 'normal',
    labelColor: '#222222',
    titleColor: '#222222',
    gridColor: '#E4E4E4',
    domainColor: '#888888',
    tickColor: '#888888',
  },
  legend: {
    labelFontSize: 18,
    titleFontSize: 18,
    titleFontWeight: 'normal',
    symbolSize: 260,
    symbolStrokeWidth: 4,
    labelLimit: 540,
    rowPadding: 6,
  },
};

/** What every chart's specification starts with: its size (the legend and axes fit inside), look and titles. */
export function chartFrame(title: string, subtitle: string) {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    width: CHART_WIDTH,
    height: CHART_HEIGHT,
    autosize: { type: 'fit', contains: 'padding' },
    config: CHART_CONFIG,
    // `fit` makes room for whatever the title needs: a subtitle wider than the picture (a long movers line) would
    // shrink the plot to nothing. Cut at the picture's width instead, with an ellipsis.
    title: { text: chartLabel(title, 70), subtitle, limit: CHART_WIDTH - 40 },
  } satisfies Partial<TopLevelSpec>;
}
