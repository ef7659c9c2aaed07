import {
  auditJobs,
  blockKitViolations,
  type JobAudit,
  type Sent,
  unescapedMentions,
  waitSettled,
} from '../fleet/audit.js';
import { within } from '../fleet/deadline.js';
import { FLEET_ADMIN, FLEET_MEMBER, Fleet, type FleetOptions, type WorkerTuning } from '../fleet/fleet.js';
import { bindChannel, FLEET_CLIENT } from '../fleet/mixed.js';

/** One row of the fault table: the goal of every count is 0. */
export interface FaultRow {
  name: string;
  size: string;
  lost: number | string;
  duplicates: number | string;
  silent: number | string;
  unescaped: number | string;
  blockKit: number | string;
  crashes: number | string;
  ms?: number;
  /** What else the run saw (outcomes, kills, retries): context, not a goal. */
  note: string;
  details: string[];
  /** Goals of the row beyond the columns that it missed (the run exits 1). */
  missed?: string[];
  /** Commands with no answer 60 s after they were sent (rows that measure it; goal 0). */
  unanswered?: number | string;
  /** The largest resident memory any worker process reached, in MB (rows that measure it). */
  peakWorkerRssMb?: number | string;
  /** Slack acks over 3 s (the assistant flood; goal 0). */
  slowAcks?: number | string;
  /** Slack reads slower than 1.5× their time without the flood (goal 0). */
  slowReads?: number | string;
  /** Assistant calls answered 429 or 503: a count, not a goal. */
  assistantRefused?: number | string;
}

/** What the audit of a row also counts as unescaped (see unescapedMentions). */
export type UnescapedOptions = Parameters<typeof unescapedMentions>[3];

export const CHANNEL = 'CFAULTS';

export function notYetBuilt(name: string, size: string, why: string): FaultRow {
  const dash = 'not yet built';
  return {
    name,
    size,
    lost: dash,
    duplicates: dash,
    silent: dash,
    unescaped: dash,
    blockKit: dash,
    crashes: dash,
    note: why,
    details: [],
  };
}

/** The fleet's processes starting (each has its own start deadline too), and the audit's reads. */
const START_MS = 240_000;
const AUDIT_MS = 120_000;
/** The drive of a row: sending its commands and faults (the full fuzz sends 10,000 commands). */
const DRIVE_MS = 8 * 60_000;

/** Short locks and backoffs, so a killed worker's job is picked up in about a second, not 30. */
export const FAULT_TUNING: WorkerTuning = {
  reconcileGraceMs: 100,
  backoffMs: 10,
  lockDurationMs: 2_000,
  stalledIntervalMs: 500,
  leaseMs: 2_000,
};

/**
 * Starts a fleet, binds the fault channel, runs `drive`, waits for the jobs to settle and audits everything.
 * Each step has a deadline; one that passes fails the row with what it was waiting for.
 */
export async function runRow(
  name: string,
  size: string,
  options: FleetOptions,
  drive: (fleet: Fleet) => Promise<{
    sent: Sent[];
    note?: string | (() => string);
    /** Lines for under the table, before the audit's. */
    details?: string[];
    /** Goals of the row beyond the columns that the drive itself missed (read once the jobs settled). */
    missed?: string[] | (() => string[]);
    /** Columns only some rows measure, read once the jobs settled. */
    columns?: () => Pick<
      FaultRow,
      'unanswered' | 'peakWorkerRssMb' | 'slowAcks' | 'slowReads' | 'assistantRefused'
    >;
    /** Runs once the fleet has stopped (what the drive started for the fleet's processes). */
    after?: () => Promise<void>;
  }>,
  settleMs: number,
  unescapedOptions: UnescapedOptions = {},
): Promise<FaultRow> {
  const began = Date.now();
  const fleet = await within(`the ${options.name} fleet to start`, START_MS, Fleet.start(options));
  let after: (() => Promise<void>) | undefined;
  try {
    await within(`${CHANNEL} to be bound`, START_MS, bindChannel(fleet, CHANNEL));
    const driven = await within(`the ${options.name} row's commands and faults`, DRIVE_MS, drive(fleet));
    after = driven.after;
    const { sent, note, details = [] } = driven;
    await within('the jobs to settle', settleMs + 30_000, waitSettled(fleet, sent, settleMs));
    const missed = typeof driven.missed === 'function' ? driven.missed() : (driven.missed ?? []);
    const audit = await within('the audit of the jobs', AUDIT_MS, auditJobs(fleet, sent, FLEET_CLIENT));
    const blockKit = blockKitViolations(fleet.slack);
    const unescaped = unescapedMentions(
      fleet.slack,
      [CHANNEL],
      [FLEET_ADMIN, FLEET_MEMBER],
      unescapedOptions,
    );
    const crashes = fleet.crashes();
    return {
      name,
      size,
      lost: audit.lost,
      duplicates: audit.duplicates,
      silent: audit.silent,
      unescaped: unescaped.count,
      blockKit: blockKit.count,
      crashes: crashes.exits + crashes.unhandled,
      ms: Date.now() - began,
      note: [outcomes(audit), typeof note === 'function' ? note() : note].filter(Boolean).join('; '),
      details: [
        ...details,
        ...[...audit.details, ...blockKit.details, ...unescaped.details, ...crashes.details].slice(0, 12),
      ],
      ...(missed.length ? { missed } : {}),
      ...driven.columns?.(),
    };
  } finally {
    await within(`the ${options.name} fleet to stop`, START_MS, fleet.stop());
    await within(`what the ${options.name} row started to stop`, START_MS, async () => after?.());
  }
}

function outcomes(a: JobAudit): string {
  return `${a.done} done, ${a.failed} failed (told), ${a.attention} need a person, ${a.told} answered without a job`;
}
