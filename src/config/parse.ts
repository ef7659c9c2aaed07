import { z } from 'zod';
import type { HostPort } from '../redis/connection.js';

/** The parsers of the configuration's variables: durations, rates, lists, ports, counts, with fix-it messages. */

const DURATION_UNITS: Record<string, number> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/**
 * Parses `250ms`, `30s`, `5m`, `24h`, `7d`. Returns milliseconds. A bare number is no duration: `TTL=1` read as
 * one second (or one hour, or one day) is a guess that fails silently, so the unit is always written.
 */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)$/.exec(text.trim());
  if (!match) return undefined;
  const ms = Number(match[1]) * (DURATION_UNITS[match[2] ?? ''] ?? Number.NaN);
  return ms > 0 ? Math.round(ms) : undefined;
}

/** `1` → `1s, 1m or 1h`: the fix-it of a duration written without its unit. */
const withUnits = (n: string) => `${n}s, ${n}m or ${n}h`;
const isBareNumber = (text: string) => /^\d+(?:\.\d+)?$/.test(text.trim());

export interface Rate {
  max: number;
  windowMs: number;
}

/** Parses `10/60s` (ten per sixty seconds), `20/1s`, `100/m`. */
export function parseRate(text: string): Rate | undefined {
  const match = /^(\d+)\s*\/\s*(\d*(?:\.\d+)?\s*(?:ms|s|m|h|d)?)$/.exec(text.trim());
  if (!match) return undefined;
  const max = Number(match[1]);
  const windowText = match[2] ?? '';
  const windowMs = parseDuration(/^\d/.test(windowText) ? windowText : `1${windowText || 's'}`);
  if (!max || !windowMs) return undefined;
  return { max, windowMs };
}

/** A rate variable (`3/60s`), refused with how to write it. */
export const rateVariable = (name: string, fallback: string, meaning: string) =>
  z
    .string()
    .default(fallback)
    .transform((v, ctx) => {
      const rate = parseRate(v);
      if (rate) return rate;
      ctx.addIssue({ code: 'custom', message: `${name}: "${v}" is not a rate; write it as ${meaning}` });
      return z.NEVER;
    });

/**
 * The key goes in every request's Authorization header, so it may travel only over TLS, or over plain HTTP that
 * never leaves the machine (the built-in sandbox, a local tunnel). The same holds for SLACK_API_URL: the bot
 * token travels with every Slack call.
 */
export function isSafeGatewayUrl(text: string): boolean {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  if (url.protocol === 'https:') return true;
  if (url.protocol !== 'http:') return false;
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

export const idList = (name: string) =>
  z
    .string()
    .optional()
    .transform((v) => (v ?? '').split(/[\s,]+/).filter(Boolean))
    .pipe(
      z.array(
        z
          .string()
          .regex(
            /^[UWS][A-Z0-9]+$/,
            `${name}: Slack ids look like U0123ABCD (users) or S0123ABCD (user groups)`,
          ),
      ),
    );

/** Words separated by commas or spaces, in lower case, each matching `pattern` (blank means none). */
export const lowerCaseList = (pattern: RegExp, message: string) =>
  z
    .string()
    .optional()
    .transform((v) =>
      (v ?? '')
        .split(/[\s,]+/)
        .filter(Boolean)
        .map((word) => word.toLowerCase()),
    )
    .pipe(z.array(z.string().regex(pattern, message)));

/** `allowZero`: `0s` (or `0`) turns the thing off. */
export const duration = (name: string, fallback: string, allowZero = false) =>
  z
    .string()
    .default(fallback)
    .transform((v, ctx) => {
      if (allowZero && /^0+(?:\.0+)?\s*(?:ms|s|m|h|d)?$/.test(v.trim())) return 0;
      const ms = parseDuration(v);
      if (ms === undefined) {
        ctx.addIssue({
          code: 'custom',
          message: isBareNumber(v)
            ? `${name}: "${v}" has no unit; write ${withUnits(v.trim())} (s seconds, m minutes, h hours, d days)`
            : `${name}: "${v}" is not a duration; write it as 30s, 5m or 24h`,
        });
        return z.NEVER;
      }
      return ms;
    });

export const port = (name: string, fallback: number, allowZero = false) =>
  z.coerce
    .number({ message: `${name} must be a port number` })
    .int(`${name} must be a whole number`)
    .min(allowZero ? 0 : 1, `${name} must be between ${allowZero ? 0 : 1} and 65535`)
    .max(65535, `${name} must be between ${allowZero ? 0 : 1} and 65535`)
    .default(fallback);

/** A whole number of something, `what` said in the refusal; at least `min` (1 unless given: 0 turns a cap off). */
export const count = (name: string, fallback: number, what: string, min = 1) =>
  z.coerce
    .number({ message: `${name} must be a whole number (${what})` })
    .int(`${name} must be a whole number (${what})`)
    .min(min, `${name} must be at least ${min} (${what})`)
    .default(fallback);

export const rate = (name: string) =>
  z.coerce
    .number({ message: `${name} must be a fraction from 0 to 1` })
    .min(0, `${name} must be a fraction from 0 to 1`)
    .max(1, `${name} must be a fraction from 0 to 1`)
    .default(0);

/** True when the prefix carries a Redis Cluster hash tag: its first `{` closes on a non-empty `}`. */
export function hasHashTag(prefix: string): boolean {
  const open = prefix.indexOf('{');
  return open >= 0 && prefix.indexOf('}', open + 1) > open + 1;
}

/** `host:port,host:port` (an IPv6 host in brackets: `[::1]:6379`). */
export const hostList = (name: string, example: string) =>
  z
    .string()
    .optional()
    .transform((v, ctx): HostPort[] => {
      const nodes: HostPort[] = [];
      for (const item of (v ?? '').split(/[\s,]+/).filter(Boolean)) {
        const match = /^(\[[^\]]+\]|[^:\s]+):(\d{1,5})$/.exec(item);
        const port = Number(match?.[2]);
        if (!match?.[1] || !(port >= 1 && port <= 65535)) {
          ctx.addIssue({ code: 'custom', message: `${name}: "${item}" is not host:port; write ${example}` });
          return z.NEVER;
        }
        nodes.push({ host: match[1].replace(/^\[|\]$/g, ''), port });
      }
      return nodes;
    });

export const optionalText = z
  .string()
  .optional()
  .transform((v) => (v?.trim() ? v.trim() : undefined));
