import type { GatewayClient, Row } from '../gateway/index.js';
import type { ActionEntry } from './catalogue.js';

/**
 * docs/gateway-api.md §4.4 rule 1: the gateway does not deduplicate, so before a second generation with the
 * same key fields (same keyword, same prospect URL, same headline) the bot looks for the record the first one
 * created. Pure over the gateway: the ledger of our own jobs is checked elsewhere.
 */

const DEFAULT_SCAN_LIMIT = 500;
/** Small pages: the earlier record is usually recent, and the walk stops at the first match. */
const PAGE_SIZE = 100;

export async function findEarlierRecord(
  gateway: Pick<GatewayClient, 'rows'>,
  entry: Pick<ActionEntry, 'recordResource' | 'sameFields'>,
  clientId: string,
  fields: Record<string, unknown>,
  opts: { scanLimit?: number } = {},
): Promise<Row | undefined> {
  const { recordResource, sameFields } = entry;
  if (!recordResource || sameFields.length === 0) return undefined;
  const wanted = sameFields.map((name) => normalize(fields[name]));
  // Nothing to compare by (every key field empty): any earlier record would "match", which means nothing.
  if (wanted.every((v) => v === '')) return undefined;
  const scanLimit = opts.scanLimit ?? DEFAULT_SCAN_LIMIT;
  const rows = gateway.rows(recordResource, {
    clientId,
    order: 'created_at',
    direction: 'desc',
    limit: Math.min(PAGE_SIZE, scanLimit),
    maxRows: scanLimit,
  });
  for await (const row of rows) {
    if (sameFields.every((name, i) => normalize(row[name]) === wanted[i])) return row;
  }
  return undefined;
}

/** Case-insensitive, trimmed, inner whitespace collapsed; lists compare item by item. */
export function normalize(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (Array.isArray(value)) return value.map(normalize).join('\n');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value).trim().replace(/\s+/g, ' ').toLowerCase();
}
