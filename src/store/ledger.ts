import { createHash } from 'node:crypto';
import type { Redis } from '../redis/connection.js';
import { defineScript, runScript } from '../redis/scripts.js';

/**
 * The action ledger: for every successful action, the record it created and the job that ran
 * it, kept per (client, action, fingerprint). It is the first place reconciliation looks after an unknown
 * outcome and the first place the duplicate guard looks before a second generation with the same fields.
 * All keys share the configured prefix, so a `{tag}` prefix keeps them in one Redis Cluster slot.
 */

export interface LedgerEntry {
  recordId: string | undefined;
  jobKey: string;
  action: string;
  clientId: string;
  fingerprint: string;
  fields: Record<string, unknown>;
  requestedBy?: string;
  /** Epoch ms when the success was recorded. */
  at: number;
}

export interface LedgerOptions {
  /** How long entries are kept; default 30 days. */
  ttlSec?: number;
  /** Entries kept per fingerprint and per client; default 50 and 500. */
  perFingerprint?: number;
  perClient?: number;
}

const DAY_SEC = 86_400;

/** Returns the job's earlier entry, or writes all three keys and returns nil. */
const RECORD = defineScript(
  'gwLedgerRecord',
  3,
  `
local earlier = redis.call('GET', KEYS[1])
if earlier then return earlier end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
redis.call('LPUSH', KEYS[2], ARGV[1])
redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[3]) - 1)
redis.call('EXPIRE', KEYS[2], ARGV[2])
redis.call('ZADD', KEYS[3], ARGV[5], ARGV[1])
redis.call('ZREMRANGEBYRANK', KEYS[3], 0, -tonumber(ARGV[4]) - 1)
redis.call('EXPIRE', KEYS[3], ARGV[2])
return false
`,
);

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const inner = (value as Record<string, unknown>)[key];
      if (inner !== undefined) out[key] = canonical(inner);
    }
    return out;
  }
  return value;
}

/** Stable hash of action + client + fields (keys sorted at every depth; strings trimmed and lower-cased). */
export function fingerprint(action: string, clientId: string, fields: Record<string, unknown>): string {
  const normal = Object.fromEntries(
    Object.entries(fields).map(([k, v]) => [k, typeof v === 'string' ? v.trim().toLowerCase() : v]),
  );
  const text = JSON.stringify([action, clientId, canonical(normal)]);
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}

/**
 * The fingerprint the worker records and the duplicate guard looks up: over the action's key fields
 * (`sameFields`: same keyword, same prospect URL) when it names them, else over every submitted field.
 */
export function actionFingerprint(
  entry: { action: string; sameFields?: readonly string[] },
  clientId: string,
  fields: Record<string, unknown>,
): string {
  return fingerprint(entry.action, clientId, pickKeyFields(entry.sameFields, fields));
}

export function pickKeyFields(
  sameFields: readonly string[] | undefined,
  fields: Record<string, unknown>,
): Record<string, unknown> {
  const named = (sameFields ?? []).filter((name) => fields[name] !== undefined);
  if (named.length === 0) return fields;
  return Object.fromEntries(named.map((name) => [name, fields[name]]));
}

export class ActionLedger {
  readonly #ttlSec: number;
  readonly #perFingerprint: number;
  readonly #perClient: number;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    options: LedgerOptions = {},
  ) {
    this.#ttlSec = options.ttlSec ?? 30 * DAY_SEC;
    this.#perFingerprint = options.perFingerprint ?? 50;
    this.#perClient = options.perClient ?? 500;
  }

  #fpKey(clientId: string, action: string, fp: string): string {
    return `${this.prefix}:ledger:fp:${clientId}:${action}:${fp}`;
  }
  #clientKey(clientId: string): string {
    return `${this.prefix}:ledger:client:${clientId}`;
  }
  #jobKey(jobKey: string): string {
    return `${this.prefix}:ledger:job:${jobKey}`;
  }

  /**
   * Records one success. Idempotent per job: a job that records twice (a re-run) keeps its first entry.
   * One script, so a fault can never leave the job's entry written but its fingerprint entry missing (the
   * duplicate guard would then not ask before a second identical request).
   */
  async recordSuccess(entry: Omit<LedgerEntry, 'at'> & { at?: number }): Promise<LedgerEntry> {
    const full: LedgerEntry = { ...entry, at: entry.at ?? Date.now() };
    const json = JSON.stringify(full);
    const earlier = (await runScript(
      this.redis,
      RECORD,
      [
        this.#jobKey(full.jobKey),
        this.#fpKey(full.clientId, full.action, full.fingerprint),
        this.#clientKey(full.clientId),
      ],
      [json, this.#ttlSec, this.#perFingerprint, this.#perClient, full.at],
    )) as string | null;
    return (earlier ? parseEntry(earlier)[0] : undefined) ?? full;
  }

  /** Earlier successes with this fingerprint, newest first. */
  async findByFingerprint(clientId: string, action: string, fp: string, limit = 10): Promise<LedgerEntry[]> {
    const raw = await this.redis.lrange(this.#fpKey(clientId, action, fp), 0, limit - 1);
    return raw.flatMap(parseEntry);
  }

  /** The success a given job recorded, if any (a re-run asks this first). */
  async findByJob(jobKey: string): Promise<LedgerEntry | undefined> {
    const raw = await this.redis.get(this.#jobKey(jobKey));
    return raw ? parseEntry(raw)[0] : undefined;
  }

  /** A client's recent successes, newest first. */
  async recentForClient(clientId: string, limit = 20): Promise<LedgerEntry[]> {
    const raw = await this.redis.zrevrange(this.#clientKey(clientId), 0, limit - 1);
    return raw.flatMap(parseEntry);
  }
}

function parseEntry(raw: string): LedgerEntry[] {
  try {
    const value = JSON.parse(raw) as LedgerEntry;
    return value && typeof value.jobKey === 'string' ? [value] : [];
  } catch {
    return [];
  }
}
