import { randomBytes } from 'node:crypto';

/** Ids shaped like Slack's, so code that parses or compares them behaves as it would against Slack. */

let lastMicros = 0;

/** A message ts ("1700000000.000123"): unique and increasing within the process, like Slack's per channel. */
export function nextTs(): string {
  lastMicros = Math.max(Date.now() * 1000, lastMicros + 1);
  const seconds = Math.floor(lastMicros / 1_000_000);
  const micros = String(lastMicros % 1_000_000).padStart(6, '0');
  return `${seconds}.${micros}`;
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

export function randomId(prefix: string, length = 10): string {
  const bytes = randomBytes(length);
  let out = prefix;
  for (const b of bytes) out += ALNUM[b % ALNUM.length];
  return out;
}

/** Slack's trigger ids look like "12345.98765.abcd2358fdea". */
export function newTriggerValue(): string {
  return `${Date.now() % 100000}.${Math.floor(Math.random() * 1e5)}.${randomBytes(12).toString('hex')}`;
}

export function newViewHash(): string {
  return `${(Date.now() / 1000).toFixed(6)}.${randomBytes(4).toString('hex')}`;
}

/** Slack gives blocks and interactive elements without ids generated ones, so clicks always carry both. */
export function shortId(): string {
  return randomBytes(3).toString('base64url');
}
