import { CronExpressionParser } from 'cron-parser';
/**
 * Digest schedules: `daily [HH:MM]`, `weekly <day> [HH:MM]`, in a time zone; `every` (a fixed
 * interval) exists for tests and demos and is not offered by the command. Pure: no clock, no Redis.
 */

export const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export type Schedule =
  | { kind: 'daily'; at: string }
  | { kind: 'weekly'; day: Weekday; at: string }
  | { kind: 'every'; ms: number };

export const DEFAULT_TIME = '09:00';

/** `9:00`, `09:00`, `17:30` → `HH:MM`; undefined when it is not a time of day. */
export function parseTimeOfDay(text: string): string | undefined {
  const m = /^([01]?\d|2[0-3]):([0-5]\d)$/.exec(text.trim());
  if (!m) return undefined;
  return `${(m[1] as string).padStart(2, '0')}:${m[2]}`;
}

/** `mon`, `Monday`, `tues` → `mon`; undefined when it is not a day of the week. */
export function parseWeekday(text: string): Weekday | undefined {
  const lower = text.trim().toLowerCase();
  if (lower.length < 3) return undefined;
  return WEEKDAYS.find((d) => DAY_NAMES[d].startsWith(lower));
}

const DAY_NAMES: Record<Weekday, string> = {
  sun: 'sunday',
  mon: 'monday',
  tue: 'tuesday',
  wed: 'wednesday',
  thu: 'thursday',
  fri: 'friday',
  sat: 'saturday',
};

/** True when `tz` is an IANA time zone this Node knows. */
export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** A zone as the time zone database spells it (`america/new_york` → `America/New_York`). */
export function canonicalTimeZone(tz: string): string {
  return new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;
}

/** BullMQ's repeat options for a schedule: a cron pattern in the zone, or a fixed interval. */
export function repeatOptions(
  schedule: Schedule,
  tz: string,
): { pattern: string; tz: string } | { every: number } {
  if (schedule.kind === 'every') return { every: schedule.ms };
  const [hh, mm] = schedule.at.split(':').map(Number);
  const dow = schedule.kind === 'weekly' ? String(WEEKDAYS.indexOf(schedule.day)) : '*';
  return { pattern: `${mm} ${hh} * * ${dow}`, tz };
}

/**
 * The period a scheduled run belongs to, from the instant it was scheduled for. Two schedulers that upsert
 * the same `every` schedule a moment apart may schedule it a few ms apart: the period is the interval's
 * number, so both land in one period and one claim.
 */
export function periodOf(schedule: Schedule, scheduledFor: number): string {
  if (schedule.kind === 'every') return `e${Math.round(scheduledFor / schedule.ms)}`;
  // Cron runs fall on whole minutes; rounding absorbs a scheduler's ms of drift.
  return `m${Math.round(scheduledFor / 60_000)}`;
}

export function describeSchedule(schedule: Schedule, tz: string): string {
  switch (schedule.kind) {
    case 'daily':
      return `daily at ${schedule.at} (${tz})`;
    case 'weekly':
      return `weekly on ${DAY_NAMES[schedule.day].replace(/^\w/, (c) => c.toUpperCase())} at ${schedule.at} (${tz})`;
    case 'every':
      return `every ${formatInterval(schedule.ms)}`;
  }
}

function formatInterval(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms % 1_000 === 0) return `${ms / 1_000} s`;
  return `${ms} ms`;
}

/**
 * When a daily or weekly schedule next runs after `now`, from the schedule itself (so right after a change it is
 * the new schedule's run, before the scheduler role has re-registered it): its cron pattern read by cron-parser,
 * the library BullMQ's job schedulers run it with, so both agree across time zones and DST. Undefined for
 * `every`, whose runs count from when the scheduler registered it.
 */
export function nextRunAt(schedule: Schedule, tz: string, now: number): number | undefined {
  const repeat = repeatOptions(schedule, tz);
  if (!('pattern' in repeat)) return undefined;
  return CronExpressionParser.parse(repeat.pattern, { currentDate: new Date(now), tz: repeat.tz })
    .next()
    .getTime();
}
