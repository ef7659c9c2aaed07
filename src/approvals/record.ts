import type { SignoffPolicy } from '../bindings/index.js';
import type { ApprovalState } from '../metrics.js';

export type { ApprovalState, SignoffPolicy };

/** A client approver as frozen into a request: the person, and the workspace every click of theirs must come from. */
export interface FrozenClientApprover {
  userId: string;
  teamId: string;
}

/** What the card shows of the frozen payload, beside its hash. */
export type ApprovalPreview =
  | { kind: 'deploy'; postId: string; postTitle?: string }
  | { kind: 'email'; to: string; subject: string; text: string }
  | { kind: 'fields'; lines: string[] };

/** One approval request, as the Redis hash holds it. */
export interface ApprovalRecord {
  id: string;
  state: ApprovalState;
  action: string;
  label: string;
  clientId: string;
  clientLabel: string;
  /** The frozen payload: exactly what runs. */
  fields: Record<string, unknown>;
  /** payloadHash(action, clientId, fields). */
  hash: string;
  preview: ApprovalPreview;
  requestedBy: string;
  channel: string;
  /** The last approval that ran this exact payload in the channel, when one had when this was asked for. */
  ranBefore?: { id: string; at: number; recordId?: string };
  /** The thread the card is in, when it came from a result's button. */
  threadTs?: string;
  cardTs?: string;
  createdAt: number;
  expiresAt: number;
  /** Who approved, rejected, cancelled or retried last, and when. */
  decidedBy?: string;
  decidedAt?: number;
  /** Who cancelled the approved run before it started, and when. */
  cancelledBy?: string;
  cancelledAt?: number;
  /** The job of the current run (set when approved). */
  jobKey?: string;
  /** How many times it was approved to run (a Retry is another run). */
  runs: number;
  finishedAt?: number;
  /** The outcome's short line (a record id, an error code): never gateway text that was not escaped. */
  outcome?: string;
  recordId?: string;
  /** Asked for through an assistant tool (an assistant-tool token), not in Slack. */
  viaAssistant?: boolean;
  /** The channel's sign-off policy when it was asked, frozen as the payload is (none: `agency`). */
  signoff?: SignoffPolicy;
  /** The client approvers named then (none under `agency`). */
  clientApprovers?: FrozenClientApprover[];
  /** Each step of a sign-off: who decided it, and when (a rejection names its step too). */
  agencyBy?: string;
  agencyAt?: number;
  clientBy?: string;
  clientAt?: number;
  /** An admin waived the client's sign-off, why, and when. */
  waivedBy?: string;
  waivedAt?: number;
  waiveReason?: string;
}

/** The sign-off policy a record was asked under. */
export const signoffOf = (record: Pick<ApprovalRecord, 'signoff'>): SignoffPolicy =>
  record.signoff ?? 'agency';

/** The record from HGETALL's flat [field, value, …] answer. */
export function parseRecord(flat: readonly string[]): ApprovalRecord | undefined {
  const h: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) h[flat[i] as string] = flat[i + 1] as string;
  if (!h.id || !h.state) return undefined;
  const num = (v: string | undefined) => (v === undefined || v === '' ? undefined : Number(v));
  const str = (v: string | undefined) => (v === undefined || v === '' ? undefined : v);
  const record: ApprovalRecord = {
    id: h.id,
    state: h.state as ApprovalState,
    action: h.action ?? '',
    label: h.label ?? h.action ?? '',
    clientId: h.clientId ?? '',
    clientLabel: h.clientLabel ?? h.clientId ?? '',
    fields: JSON.parse(h.fields ?? '{}') as Record<string, unknown>,
    hash: h.hash ?? '',
    preview: JSON.parse(h.preview ?? '{"kind":"fields","lines":[]}') as ApprovalPreview,
    requestedBy: h.requestedBy ?? '',
    channel: h.channel ?? '',
    createdAt: Number(h.createdAt ?? 0),
    expiresAt: Number(h.expiresAt ?? 0),
    runs: Number(h.runs ?? 0),
  };
  const optional = {
    ranBefore: h.ranBefore ? (JSON.parse(h.ranBefore) as ApprovalRecord['ranBefore']) : undefined,
    threadTs: str(h.threadTs),
    cardTs: str(h.cardTs),
    decidedBy: str(h.decidedBy),
    decidedAt: num(h.decidedAt),
    cancelledBy: str(h.cancelledBy),
    cancelledAt: num(h.cancelledAt),
    jobKey: str(h.jobKey),
    finishedAt: num(h.finishedAt),
    outcome: str(h.outcome),
    recordId: str(h.recordId),
    viaAssistant: h.viaAssistant === '1' ? true : undefined,
    signoff: h.signoff === 'client' || h.signoff === 'both' ? h.signoff : undefined,
    clientApprovers: h.clientApprovers
      ? (JSON.parse(h.clientApprovers) as FrozenClientApprover[])
      : undefined,
    agencyBy: str(h.agencyBy),
    agencyAt: num(h.agencyAt),
    clientBy: str(h.clientBy),
    clientAt: num(h.clientAt),
    waivedBy: str(h.waivedBy),
    waivedAt: num(h.waivedAt),
    waiveReason: str(h.waiveReason),
  };
  for (const [key, value] of Object.entries(optional)) {
    if (value !== undefined) (record as unknown as Record<string, unknown>)[key] = value;
  }
  return record;
}
