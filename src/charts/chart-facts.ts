import type { KeywordSeries } from './rankings-chart.js';

/** What a chart shows, in figures: its summary line and the numbers an assistant gets beside it. */
export type ChartFacts =
  | {
      kind: 'rankings';
      clientLabel: string;
      from: string;
      to: string;
      keywords: Array<{
        keyword: string;
        first: number | null;
        last: number | null;
        points: KeywordSeries['points'];
      }>;
      /** Asked-for keywords the client does not track. */
      missing: string[];
      /** Where the read stopped, when it did not reach `from` (its oldest tracking date). */
      readFrom?: string;
    }
  | {
      kind: 'reviews';
      clientLabel: string;
      from: string;
      to: string;
      months: Array<{ month: string; counts: number[]; average: number | null }>;
      total: number;
      average: number | null;
      /** Where the read stopped, when the period held more reviews than one chart reads. */
      readFrom?: string;
    };
