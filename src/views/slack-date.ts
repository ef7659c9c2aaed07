/**
 * Slack's own date formatting (`<!date^…>`): each reader sees the time in their own time zone and locale, and
 * the fallback after `|` (shown where Slack cannot format, and by the demo console) is UTC. Pure: no I/O.
 */

const ISO = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A time as a number (ms), a Date, or an ISO-like string (`2025-06-02`, `2025-06-02T10:00:00Z`). */
export function toTime(value: unknown): number | undefined {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.getTime();
  if (typeof value === 'number') return Number.isFinite(value) && value > 0 ? value : undefined;
  if (typeof value !== 'string' || !ISO.test(value.trim())) return undefined;
  const text = value.trim().replace(' ', 'T');
  // A bare day is placed at noon UTC, so every time zone from UTC−12 to UTC+11 shows that same day (midnight
  // would show the day before all over the Americas). A time without a zone is the gateway's UTC, not ours.
  const at = DAY.test(text)
    ? Date.parse(`${text}T12:00:00Z`)
    : Date.parse(/(Z|[+-]\d{2}:?\d{2})$/.test(text) ? text : `${text}Z`);
  return Number.isNaN(at) ? undefined : at;
}

/**
 * `<!date^…>` for a time: the day and the time of day, or the day alone for a date without a time
 * (`dayOnly`, and any `YYYY-MM-DD` string). Undefined when the value is not a time.
 */
export function slackDate(value: unknown, options: { dayOnly?: boolean } = {}): string | undefined {
  const at = toTime(value);
  if (at === undefined) return undefined;
  const dayOnly = options.dayOnly ?? (typeof value === 'string' && DAY.test(value.trim()));
  const iso = new Date(at).toISOString();
  const fallback = dayOnly ? iso.slice(0, 10) : `${iso.slice(0, 16).replace('T', ' ')} UTC`;
  const format = dayOnly ? '{date_short_pretty}' : '{date_short_pretty} at {time}';
  return `<!date^${Math.floor(at / 1000)}^${format}|${fallback}>`;
}
