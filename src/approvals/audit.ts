/**
 * The audit log of approvals and guarded actions: an append-only Redis stream per channel, one
 * entry per transition, trimmed by age (XADD MINID, never by count: a busy week must not push out last
 * month). `/gateway history` reads it.
 */

const DAY_MS = 86_400_000;
/** How long the audit log keeps an entry. */
const AUDIT_MAX_AGE_MS = 180 * DAY_MS;

export const auditKey = (prefix: string, channel: string) => `${prefix}:approval-audit:${channel}`;

/** The oldest stream id kept when writing at `now`. */
export function auditMinId(now: number, maxAgeMs = AUDIT_MAX_AGE_MS): string {
  return `${Math.max(0, now - maxAgeMs)}-0`;
}

export interface AuditEntry {
  /** The stream id: the cursor of the next page. */
  id: string;
  approval: string;
  state: string;
  actor: string;
  action: string;
  label: string;
  client: string;
  /** The client's name as the card showed it. */
  clientLabel: string;
  hash: string;
  requestedBy: string;
  job: string;
  note: string;
  at: number;
}

export function parseAuditEntries(raw: Array<[string, string[]]>): AuditEntry[] {
  return raw.map(([id, flat]) => {
    const f: Record<string, string> = {};
    for (let i = 0; i + 1 < flat.length; i += 2) f[flat[i] as string] = flat[i + 1] as string;
    return {
      id,
      approval: f.approval ?? '',
      state: f.state ?? '',
      actor: f.actor ?? '',
      action: f.action ?? '',
      label: f.label ?? f.action ?? '',
      client: f.client ?? '',
      clientLabel: f.clientLabel ?? '',
      hash: f.hash ?? '',
      requestedBy: f.requestedBy ?? '',
      job: f.job ?? '',
      note: f.note ?? '',
      at: Number(f.at ?? 0),
    };
  });
}
