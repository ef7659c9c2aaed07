import { randomBytes } from 'node:crypto';
import type { Metrics } from '../metrics.js';
import type { Redis } from '../redis/connection.js';
import { runScript } from '../redis/scripts.js';
import { type AuditEntry, auditKey, auditMinId, parseAuditEntries } from './audit.js';
import { type ApprovalRecord, type ApprovalState, parseRecord } from './record.js';
import { type SignoffStep, signoffOutcome } from './signoff-rule.js';
import { approvalCreate, approvalTransition } from './transition.js';

/**
 * Approvals in Redis: one hash per request, every change through the one transition script, so a
 * card clicked after a restart, or on another web process, finds the same state and the same single winner.
 */

const DAY_MS = 86_400_000;
/** A decided request stays readable (its card clickable, with an answer) this long after its last change. */
const RECORD_TTL_MS = 30 * DAY_MS;
/** The pending index keeps the newest this many (far more than anyone decides; the expiry empties it). */
const PENDING_KEPT = 5_000;
/** Each requester's index keeps their newest this many requests. */
const REQUESTER_KEPT = 50;

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
  | 'ranBefore'
  | 'viaAssistant'
> &
  Partial<Pick<ApprovalRecord, 'signoff' | 'clientApprovers'>> & { ttlMs: number };

export type TransitionResult =
  /** `partial`: one step of a sign-off was recorded and the request still waits for the other. */
  | { ok: true; from: ApprovalState; record: ApprovalRecord; partial?: true }
  /** `self`: refused because the actor asked for it and may not decide on its own request. */
  | { ok: false; state: ApprovalState; record: ApprovalRecord; self?: true; stepped?: true }
  | { ok: false; state: 'missing'; record?: undefined };

export interface TransitionInput {
  actor: string;
  jobKey?: string;
  hash?: string;
  note?: string;
  recordId?: string;
  /** The requester may not make this decision (self-approval is off). */
  forbidSelf?: boolean;
  /** The sign-off step a decision on a pending request makes (signoff-rule.ts); none for other transitions. */
  step?: SignoffStep;
  /** The clicker's workspace, for a `client` step: it must be the one frozen with their name. */
  team?: string;
}

export class ApprovalStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly options: {
      metrics?: Metrics;
      auditMaxAgeMs?: number;
      /** Told of every new request and every transition (the Home tabs that show it are re-published). */
      changed?: (record: ApprovalRecord) => Promise<void>;
    } = {},
  ) {}

  #key(id: string): string {
    return `${this.prefix}:approval:${id}`;
  }

  #indexKey(channel: string): string {
    return `${this.prefix}:approval-index:${channel}`;
  }

  /** Pending requests of every channel, by creation time: what waits for approvers. */
  #pendingKey(): string {
    return `${this.prefix}:approvals:pending`;
  }

  /** A requester's newest requests, by creation time. */
  #requesterKey(user: string): string {
    return `${this.prefix}:approvals:by:${user}`;
  }

  /** The indexes follow the record (a stale entry is dropped when read), and the listeners are told. */
  async #indexed(record: ApprovalRecord): Promise<void> {
    try {
      await this.#index(record);
      await this.options.changed?.(record);
    } catch {
      // The decision stands: an index heals when read, and a Home tab left behind is re-published when opened.
    }
  }

  async #index(record: ApprovalRecord): Promise<void> {
    const pipe = this.redis.pipeline();
    if (record.state === 'pending') {
      pipe.zadd(this.#pendingKey(), record.createdAt, record.id);
      pipe.zremrangebyrank(this.#pendingKey(), 0, -(PENDING_KEPT + 1));
      const mine = this.#requesterKey(record.requestedBy);
      pipe.zadd(mine, record.createdAt, record.id);
      pipe.zremrangebyrank(mine, 0, -(REQUESTER_KEPT + 1));
      pipe.pexpire(mine, RECORD_TTL_MS);
    } else pipe.zrem(this.#pendingKey(), record.id);
    await pipe.exec();
  }

  /** The newest pending requests of every channel (at most `limit`), and how many are pending in all. */
  async pending(limit: number, now = Date.now()): Promise<{ records: ApprovalRecord[]; total: number }> {
    const [ids, total] = await Promise.all([
      this.redis.zrevrange(this.#pendingKey(), 0, limit - 1),
      this.redis.zcard(this.#pendingKey()),
    ]);
    const found = await this.#records(ids);
    // Ended without the index hearing of it (an index write that failed): dropped here.
    const pending = new Set(found.filter((r) => r.state === 'pending').map((r) => r.id));
    const gone = ids.filter((id) => !pending.has(id));
    if (gone.length) await this.redis.zrem(this.#pendingKey(), ...gone);
    // Past its expiry, with the expiry job yet to run: nobody can approve it any more.
    const records = found.filter((r) => r.state === 'pending' && r.expiresAt > now);
    return { records, total: Math.max(records.length, total - (ids.length - records.length)) };
  }

  /** A requester's newest requests, whatever their state (at most `limit`). */
  async requestedBy(user: string, limit: number): Promise<ApprovalRecord[]> {
    return this.#records(await this.redis.zrevrange(this.#requesterKey(user), 0, limit - 1));
  }

  /**
   * How many requests `user` made since `since` (ms), as far as their index tells: `atLeast` when the index,
   * which keeps their newest few, is full of them, so that there may be more.
   */
  async requestedSince(user: string, since: number): Promise<{ count: number; atLeast: boolean }> {
    const count = await this.redis.zcount(this.#requesterKey(user), since, '+inf');
    return { count, atLeast: count >= REQUESTER_KEPT };
  }

  async #records(ids: readonly string[]): Promise<ApprovalRecord[]> {
    if (!ids.length) return [];
    const pipe = this.redis.pipeline();
    for (const id of ids) pipe.hgetall(this.#key(id));
    const answers = (await pipe.exec()) ?? [];
    return answers
      .map(([, hash]) => parseRecord(flatten((hash ?? {}) as Record<string, string>)))
      .filter((r): r is ApprovalRecord => r !== undefined);
  }

  /**
   * A new request unless an identical one (same channel, same payload hash) is pending, approved or running:
   * then that one, and nothing is created. Atomic: of concurrent identical requests, exactly one is created.
   */
  async createExclusive(
    input: NewApproval,
    now = Date.now(),
  ): Promise<{ created: ApprovalRecord } | { pending: ApprovalRecord }> {
    for (let attempt = 0; ; attempt++) {
      const made = await this.#create(input, now);
      if ('created' in made || attempt > 0) return made;
      const holder = made.pending;
      // An entry whose request is past its expiry with the expiry job not run yet, or is stale, is released here.
      if (holder.state === 'pending' && now >= holder.expiresAt) {
        await this.transition(holder.id, holder.channel, 'expired', { actor: 'expiry' }, now);
      } else if (!['pending', 'approved', 'running'].includes(holder.state)) {
        // Gone (id ''), or no longer in flight: the entry is stale.
        await this.redis.hdel(this.#indexKey(input.channel), `pending:${input.hash}`);
      } else return made;
    }
  }

  /** The request with this payload in the channel that is still in flight (pending, approved, running), if any. */
  async inFlight(channel: string, hash: string): Promise<ApprovalRecord | undefined> {
    const id = await this.redis.hget(this.#indexKey(channel), `pending:${hash}`);
    const record = id ? await this.get(id) : undefined;
    return record && record.hash === hash && ['pending', 'approved', 'running'].includes(record.state)
      ? record
      : undefined;
  }

  /** The last approval that ran this payload in the channel (done), if any. */
  async lastDone(channel: string, hash: string): Promise<ApprovalRecord | undefined> {
    const id = await this.redis.hget(this.#indexKey(channel), `done:${hash}`);
    const record = id ? await this.get(id) : undefined;
    return record?.state === 'done' && record.hash === hash ? record : undefined;
  }

  async #create(
    input: NewApproval,
    now: number,
  ): Promise<{ created: ApprovalRecord } | { pending: ApprovalRecord }> {
    const id = `a${now.toString(36)}${randomBytes(4).toString('hex')}`;
    const { ttlMs, preview, fields, threadTs, ranBefore, viaAssistant, signoff, clientApprovers, ...rest } =
      input;
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
      ...(ranBefore ? { ranBefore: JSON.stringify(ranBefore) } : {}),
      ...(viaAssistant ? { viaAssistant: '1' } : {}),
      ...frozenSignoff(signoff, clientApprovers),
    };
    const record = Object.entries(values).flat();
    const answer = (await runScript(
      this.redis,
      approvalCreate,
      [this.#key(id), auditKey(this.prefix, input.channel), this.#indexKey(input.channel)],
      [
        id,
        input.hash,
        ttlMs + RECORD_TTL_MS,
        auditMinId(now, this.options.auditMaxAgeMs),
        record.length,
        ...record,
        ...auditFields({
          approval: id,
          state: 'pending',
          actor: input.requestedBy,
          action: input.action,
          label: input.label,
          client: input.clientId,
          clientLabel: input.clientLabel,
          hash: input.hash,
          requestedBy: input.requestedBy,
          job: '',
          note: '',
          at: String(now),
        }),
      ],
    )) as string[];
    if (answer[0] === 'held') {
      const holder = await this.get(answer[1] ?? '');
      // A holder that is gone: the caller releases its entry (id '').
      return { pending: holder ?? ({ id: '', state: 'expired' } as ApprovalRecord) };
    }
    this.options.metrics?.approvalEntered('pending');
    const created = await this.get(id);
    if (!created) throw new Error(`approval ${id} vanished as it was written`);
    await this.#indexed(created);
    return { created };
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
      [this.#key(id), auditKey(this.prefix, channel), this.#indexKey(channel)],
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
        input.step ?? '',
        input.team ?? '',
      ],
    )) as string[];
    const [kind, before, ...flat] = answer;
    const record = parseRecord(flat);
    if (kind === 'missing' || !record) return { ok: false, state: 'missing' };
    // Sign-off steps are counted under the policies that have them (a partial step, or the one that ended it).
    if ((kind === 'partial' || kind === 'ok') && input.step && record.signoff)
      this.options.metrics?.signoff(signoffOutcome(to, input.step));
    if (kind === 'partial') {
      await this.#indexed(record);
      return { ok: true, from: 'pending', record, partial: true };
    }
    if (kind === 'ok') {
      if (before !== to) {
        this.options.metrics?.approvalEntered(to);
        await this.#indexed(record);
      }
      return { ok: true, from: before as ApprovalState, record };
    }
    // A pending request found past its expiry was expired by this call.
    if (before === 'pending' && record.state === 'expired') {
      this.options.metrics?.approvalEntered('expired');
      await this.#indexed(record);
    }
    const said =
      kind === 'self' ? { self: true as const } : kind === 'stepped' ? { stepped: true as const } : {};
    return { ok: false, state: record.state, record, ...said };
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

/** The sign-off frozen into a new record: nothing under `agency` (a record without it is `agency`). */
function frozenSignoff(signoff?: string, approvers: unknown[] = []): Record<string, string> {
  return signoff && signoff !== 'agency' ? { signoff, clientApprovers: JSON.stringify(approvers) } : {};
}

function auditFields(entry: Record<string, string>): string[] {
  return Object.entries(entry).flat();
}
