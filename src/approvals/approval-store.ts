import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Metrics } from '../metrics.js';
import { runScript } from '../redis-scripts.js';
import { type AuditEntry, auditKey, auditMinId, parseAuditEntries } from './audit.js';
import { type ApprovalRecord, type ApprovalState, parseRecord } from './record.js';
import { approvalTransition } from './transition.js';

/**
 * Approvals in Redis: one hash per request, every change through the one transition script, so a
 * card clicked after a restart, or on another web process, finds the same state and the same single winner.
 */

const DAY_MS = 86_400_000;
/** A decided request stays readable (its card clickable, with an answer) this long after its last change. */
const RECORD_TTL_MS = 30 * DAY_MS;

/** A new request: the record's own fields, and how long until it expires. */
export type NewApproval = Pick<
  ApprovalRecord,
  | 'action'
  | 'label'
  | 'clientId'
  | 'clientLabel'
  | 'fields'
  | 'hash'
  | 'preview'
  | 'requestedBy'
  | 'channel'
  | 'threadTs'
> & { ttlMs: number };

export type TransitionResult =
  | { ok: true; from: ApprovalState; record: ApprovalRecord }
  /** `self`: refused because the actor asked for it and may not decide on its own request. */
  | { ok: false; state: ApprovalState; record: ApprovalRecord; self?: true }
  | { ok: false; state: 'missing'; record?: undefined };

export interface TransitionInput {
  actor: string;
  jobKey?: string;
  hash?: string;
  note?: string;
  recordId?: string;
  /** The requester may not make this decision (self-approval is off). */
  forbidSelf?: boolean;
}

export class ApprovalStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly options: { metrics?: Metrics; auditMaxAgeMs?: number } = {},
  ) {}

  #key(id: string): string {
    return `${this.prefix}:approval:${id}`;
  }

  async create(input: NewApproval, now = Date.now()): Promise<ApprovalRecord> {
    const id = `a${now.toString(36)}${randomBytes(4).toString('hex')}`;
    const { ttlMs, preview, fields, threadTs, ...rest } = input;
    const values: Record<string, string> = {
      ...rest,
      id,
      state: 'pending',
      fields: JSON.stringify(fields),
      preview: JSON.stringify(preview),
      createdAt: String(now),
      expiresAt: String(now + ttlMs),
      runs: '0',
      ...(threadTs ? { threadTs } : {}),
    };
    await this.redis
      .multi()
      .hset(this.#key(id), values)
      .pexpire(this.#key(id), ttlMs + RECORD_TTL_MS)
      .xadd(
        auditKey(this.prefix, input.channel),
        'MINID',
        '~',
        auditMinId(now, this.options.auditMaxAgeMs),
        '*',
        ...auditFields({
          approval: id,
          state: 'pending',
          actor: input.requestedBy,
          action: input.action,
          label: input.label,
          client: input.clientId,
          hash: input.hash,
          requestedBy: input.requestedBy,
          job: '',
          note: '',
          at: String(now),
        }),
      )
      .exec();
    this.options.metrics?.approvalEntered('pending');
    const record = await this.get(id);
    if (!record) throw new Error(`approval ${id} vanished as it was written`);
    return record;
  }

  async get(id: string): Promise<ApprovalRecord | undefined> {
    if (!/^[a-z0-9]{1,40}$/.test(id)) return undefined;
    return parseRecord(await this.redis.hgetall(this.#key(id)).then(flatten));
  }

  async setCardTs(id: string, cardTs: string): Promise<void> {
    await this.redis.hset(this.#key(id), 'cardTs', cardTs);
  }

  /** One transition, atomically (transition.ts); `ok` for exactly one of any number of concurrent callers. */
  async transition(
    id: string,
    channel: string,
    to: ApprovalState,
    input: TransitionInput,
    now = Date.now(),
  ): Promise<TransitionResult> {
    if (!/^[a-z0-9]{1,40}$/.test(id)) return { ok: false, state: 'missing' };
    const answer = (await runScript(
      this.redis,
      approvalTransition,
      [this.#key(id), auditKey(this.prefix, channel)],
      [
        to,
        now,
        input.actor,
        input.jobKey ?? '',
        input.hash ?? '',
        input.note ?? '',
        input.recordId ?? '',
        auditMinId(now, this.options.auditMaxAgeMs),
        RECORD_TTL_MS,
        input.forbidSelf ? '1' : '0',
      ],
    )) as string[];
    const [kind, before, ...flat] = answer;
    const record = parseRecord(flat);
    if (kind === 'missing' || !record) return { ok: false, state: 'missing' };
    if (kind === 'ok') {
      if (before !== to) this.options.metrics?.approvalEntered(to);
      return { ok: true, from: before as ApprovalState, record };
    }
    // A pending request found past its expiry was expired by this call.
    if (before === 'pending' && record.state === 'expired') this.options.metrics?.approvalEntered('expired');
    return { ok: false, state: record.state, record, ...(kind === 'self' ? { self: true as const } : {}) };
  }

  /** A channel's audit log, newest first; `before`: the id of the last entry of the previous page. */
  async history(channel: string, count: number, before?: string): Promise<AuditEntry[]> {
    const end = before ? `(${before}` : '+';
    const raw = (await this.redis.xrevrange(
      auditKey(this.prefix, channel),
      end,
      '-',
      'COUNT',
      count,
    )) as Array<[string, string[]]>;
    return parseAuditEntries(raw);
  }
}

function flatten(hash: Record<string, string>): string[] {
  return Object.entries(hash).flat();
}

function auditFields(entry: Record<string, string>): string[] {
  return Object.entries(entry).flat();
}
