import { UserError, UserErrorCode } from '../requests/index.js';

/** The period a chart shows: given dates checked, missing ones filled in with each kind's default. */

export type ChartKind = 'rankings' | 'reviews';

export interface ChartPeriod {
  /** YYYY-MM-DD, both included. */
  from: string;
  to: string;
}

const DAY_MS = 86_400_000;
/** Rankings: the last 90 days unless asked; at most a year and a day. */
const RANKINGS_DAYS = 90;
const RANKINGS_MAX_DAYS = 366;
/** Reviews: this month and the 11 before unless asked; at most three years of months. */
const REVIEW_MONTHS = 12;
const REVIEWS_MAX_MONTHS = 36;

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function parseDay(value: string, name: string, usage: string): string {
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T00:00:00Z`) : Number.NaN;
  if (Number.isNaN(ms) || day(ms) !== value) {
    throw new UserError(UserErrorCode.BadArguments, `\`${name}=\` takes a date as YYYY-MM-DD.`, {
      usage,
      hint: `For example \`${name}=${day(Date.now() - 30 * DAY_MS)}\`.`,
    });
  }
  return value;
}

function monthStart(ms: number, monthsBack: number): string {
  const d = new Date(ms);
  return day(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - monthsBack, 1));
}

function monthsSpanned(from: string, to: string): number {
  const [fy, fm] = from.split('-').map(Number) as [number, number];
  const [ty, tm] = to.split('-').map(Number) as [number, number];
  return (ty - fy) * 12 + (tm - fm) + 1;
}

/** The period to chart: `from`/`to` as given (checked), the rest from the kind's default, up to today (UTC). */
export function chartPeriod(
  kind: ChartKind,
  given: { from?: string | undefined; to?: string | undefined },
  now: number,
  usage: string,
): ChartPeriod {
  const to = given.to ? parseDay(given.to, 'to', usage) : day(now);
  const toMs = Date.parse(`${to}T00:00:00Z`);
  const from = given.from
    ? parseDay(given.from, 'from', usage)
    : kind === 'rankings'
      ? day(toMs - (RANKINGS_DAYS - 1) * DAY_MS)
      : monthStart(toMs, REVIEW_MONTHS - 1);
  if (from > to) {
    throw new UserError(UserErrorCode.BadArguments, `\`from=${from}\` is after \`to=${to}\`.`, {
      usage,
      hint: 'Give the earlier date as `from=`.',
    });
  }
  const tooLong =
    kind === 'rankings'
      ? (toMs - Date.parse(`${from}T00:00:00Z`)) / DAY_MS + 1 > RANKINGS_MAX_DAYS
      : monthsSpanned(from, to) > REVIEWS_MAX_MONTHS;
  if (tooLong) {
    throw new UserError(UserErrorCode.BadArguments, 'That period is too long for one chart.', {
      usage,
      hint:
        kind === 'rankings'
          ? `A rankings chart shows at most ${RANKINGS_MAX_DAYS} days.`
          : `A reviews chart shows at most ${REVIEWS_MAX_MONTHS} months.`,
    });
  }
  return { from, to };
}
