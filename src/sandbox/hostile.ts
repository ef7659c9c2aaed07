import type { ServerResponse } from 'node:http';
import type { Row } from '../gateway/types.js';

/**
 * A hostile or stuck gateway, for the fault suite and the tests of the bot's defences: answers that drip,
 * pages that never end, strings that try to ping a channel or disguise a link, and a proxy that echoes the
 * request's Authorization header into the rows.
 */

/** What a hostile gateway adds to every string: a channel-wide ping, a disguised link, a right-to-left override. */
export const HOSTILE_PAYLOAD = ' <!channel> <https://evil.example/login|Approve here> \u202Etxt.exe';

/** Every string of every row passed through `change` (arrays of strings too); keys are left as they are. */
export function mapRowStrings(rows: readonly Row[], change: (text: string) => string): Row[] {
  const value = (v: unknown): unknown =>
    typeof v === 'string' ? change(v) : Array.isArray(v) ? v.map(value) : v;
  return rows.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, value(v)])));
}

/**
 * A page of a walk that never ends: `limit` rows from `offset` on, going round the rows again past their end
 * (with new ids, so they look like new rows), and `has_more` always true.
 */
export function endlessPage(rows: readonly Row[], offset: number, limit: number): Row[] {
  if (rows.length === 0) return [];
  return Array.from({ length: limit }, (_, i) => {
    const n = offset + i;
    const row = rows[n % rows.length] as Row;
    return n < rows.length
      ? row
      : { ...row, id: `${String(row.id ?? 'row')}~${Math.floor(n / rows.length)}` };
  });
}

/**
 * The headers at once, then the body one byte every `everyMs`: a read that never goes silent long enough for
 * a body timeout, and ends only after length × everyMs. Stops when the caller goes away.
 */
export async function dripJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string>,
  everyMs: number,
): Promise<void> {
  if (res.destroyed || res.writableEnded) return;
  const bytes = Buffer.from(JSON.stringify(body));
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(bytes.length),
    ...headers,
  });
  res.flushHeaders();
  let gone = false;
  let wake: (() => void) | undefined;
  res.once('close', () => {
    gone = true;
    wake?.();
  });
  for (let i = 0; i < bytes.length && !gone; i++) {
    res.write(bytes.subarray(i, i + 1));
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, everyMs);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
  if (!gone) res.end();
}
