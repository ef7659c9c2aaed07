import type { GatewayClient, Row } from '../gateway/index.js';
import type { ActionLedger } from '../store/index.js';
import { pickKeyFields } from '../store/index.js';

/**
 * After an unknown outcome (5xx, timeout, dropped connection, a run that died mid-POST) a job must find out
 * whether its first attempt created a record before it may POST again (docs/gateway-api.md §7 rule 3): the
 * ledger first, then the resource the action writes to, newest first, back to when the attempt began.
 */

export type Reconciliation =
  | {
      kind: 'found';
      recordId: string | undefined;
      record: Record<string, unknown>;
      via: 'ledger' | 'resource';
    }
  | { kind: 'absent' }
  | { kind: 'unknown'; reason: string };

export interface ReconcileInput {
  gateway: Pick<GatewayClient, 'rows'>;
  ledger: ActionLedger;
  entry: { action: string; recordResource?: string; sameFields?: readonly string[] };
  jobKey: string;
  clientId: string;
  fields: Record<string, unknown>;
  fingerprint: string;
  /** When the attempt in question began (epoch ms). */
  startedAt: number;
  /** Clock difference tolerated between the gateway and us. */
  skewMs?: number;
  maxRows?: number;
  signal?: AbortSignal;
}

function same(a: unknown, b: unknown): boolean {
  const norm = (v: unknown) => (typeof v === 'object' ? JSON.stringify(v) : String(v).trim().toLowerCase());
  return norm(a) === norm(b);
}

/** A row's creation time; a date without a time counts as its whole day (it may be "since"). */
function createdAtMs(row: Row): number | undefined {
  const raw = row.created_at;
  if (typeof raw !== 'string') return undefined;
  const ms = Date.parse(raw);
  if (Number.isNaN(ms)) return undefined;
  return /^\d{4}-\d{2}-\d{2}$/.test(raw) ? ms + 86_399_999 : ms;
}

export async function reconcile(input: ReconcileInput): Promise<Reconciliation> {
  const mine = await input.ledger.findByJob(input.jobKey);
  if (mine) {
    return { kind: 'found', recordId: mine.recordId, record: { id: mine.recordId }, via: 'ledger' };
  }
  const resource = input.entry.recordResource;
  if (!resource) {
    return {
      kind: 'unknown',
      reason: 'the gateway offers no place to look for the record this action creates',
    };
  }
  // Records other jobs already own are never "ours", even with the same fields.
  const owned = new Set(
    (await input.ledger.findByFingerprint(input.clientId, input.entry.action, input.fingerprint, 50)).map(
      (e) => e.recordId,
    ),
  );
  const wanted = Object.entries(pickKeyFields(input.entry.sameFields, input.fields));
  const since = input.startedAt - (input.skewMs ?? 60_000);
  const maxRows = input.maxRows ?? 200;
  let seen = 0;
  let reachedSince = false;
  let unclear: string | undefined;
  // One row more than the cap: it tells "all rows since the attempt were read" from "ran out of budget".
  for await (const row of input.gateway.rows(resource, {
    clientId: input.clientId,
    order: 'created_at',
    direction: 'desc',
    maxRows: maxRows + 1,
    limit: Math.min(100, maxRows + 1),
    ...(input.signal ? { signal: input.signal } : {}),
  })) {
    const created = createdAtMs(row);
    if (created !== undefined && created < since) {
      reachedSince = true;
      break;
    }
    if (++seen > maxRows) break;
    const id = row.id === undefined ? undefined : String(row.id);
    if (id && owned.has(id)) continue;
    // A row that shows a different value is not ours; one that does not show a key field cannot be told.
    if (wanted.some(([name, value]) => row[name] !== undefined && !same(row[name], value))) continue;
    const missing = wanted.filter(([name]) => row[name] === undefined).map(([name]) => name);
    if (missing.length === 0) return { kind: 'found', recordId: id, record: row, via: 'resource' };
    unclear ??= `a ${resource} record made since the attempt began does not show ${missing.join(', ')}, so it may be the one`;
  }
  if (unclear) return { kind: 'unknown', reason: unclear };
  if (seen > maxRows && !reachedSince) {
    return {
      kind: 'unknown',
      reason: `more than ${maxRows} ${resource} records were made since the attempt began; the bot cannot check them all`,
    };
  }
  return { kind: 'absent' };
}
