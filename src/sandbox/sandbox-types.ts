import type { Row } from '../gateway/types.js';
import type { AdvanceSummary } from './advance.js';

/** Fault rates and latency of the sandbox; every rate is a fraction from 0 to 1. */
export interface SandboxKnobs {
  /** Delay before every answer. */
  latencyMs: number;
  /** Fraction of requests answered 500 before any work is done. */
  errorRate: number;
  /** Fraction of POSTs that run the action and then never answer (socket held until the client gives up). */
  timeoutRate: number;
  /** Fraction of POSTs that run the action (record created) and then destroy the socket with no response. */
  dropRate: number;
  /** Fraction of POSTs answered HTTP 200 {status:"error", status_code: 502} creating nothing. */
  statusErrorRate: number;
  /** Fraction of GETs (discovery included) that send their headers, then one byte of the body every `dripMs`. */
  dripRate: number;
  /** Pause between the bytes of a dripped answer (default 2,000 ms). */
  dripMs: number;
  /** Fraction of reads whose pages never end: `has_more` always true, rows past the total keep coming. */
  endlessRate: number;
  /** Fraction of reads whose every string carries a mention, a link and a bidirectional override. */
  hostileRate: number;
  /** Fraction of reads whose every string carries the Authorization header sent (a proxy that echoes it). */
  echoKeyRate: number;
}

export type SandboxFault =
  | '500'
  | '500_after_action'
  | 'timeout'
  | 'drop_after_action'
  | 'status_error'
  | 'drop_before_action'
  | 'drip';

export const SANDBOX_FAULTS: readonly SandboxFault[] = [
  '500',
  '500_after_action',
  'timeout',
  'drop_after_action',
  'status_error',
  'drop_before_action',
  'drip',
];

export interface SandboxOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Seed of the sample data and of the fault dice; default 42. */
  seed?: number;
  knobs?: Partial<SandboxKnobs>;
  /** Keyword rows of the large client; default 100,000 (20,000 keywords × 5 weekly dates). */
  largeKeywordRows?: number;
  /** The instant the sample data ends at (ISO); default 2025-06-30T12:00:00Z, so every run serves the same rows
   * (the bot's sandbox and `npm run sandbox` pass `recentAnchor()`: the day before they start). */
  anchorDate?: string;
}

export interface SandboxRequestLog {
  at: string;
  method: string;
  /** The sample key used ('sandbox-key' etc.); a key the sandbox does not know is logged as 'unknown'. */
  key: string | undefined;
  resource?: string;
  action?: string;
  clientId?: string;
  fields?: Record<string, unknown>;
  /** HTTP status answered; 0 when the sandbox answered nothing (timeout or dropped socket). */
  status: number;
  fault?: SandboxFault;
  /** The caller closed the connection before the answer was written (its timeout, or it died mid-request). */
  callerGone?: boolean;
}

export interface FailNextMatch {
  method?: 'GET' | 'POST';
  action?: string;
  resource?: string;
  count?: number;
}

export interface Sandbox {
  /** Gateway base address, e.g. http://127.0.0.1:4010/gateway */
  url: string;
  /** e.g. http://127.0.0.1:4010 */
  origin: string;
  port: number;
  setKnobs(k: Partial<SandboxKnobs>): void;
  /** Deterministic faults for tests: the next `count` requests matching (method, action, resource) get this fault, in order queued. */
  failNext(fault: SandboxFault, match?: FailNextMatch): void;
  /** Records CREATED per clientId per action (what proves "nothing created twice"). */
  counts(): Record<string, Record<string, number>>;
  /** Every gateway request received, in order. */
  requests(): SandboxRequestLog[];
  /** Reads (GET with a resource) being answered now, and the most at once since the start or the last reset. */
  readsInFlight(): { now: number; max: number };
  /** Current rows incl. created ones. Actions with no readable resource keep theirs under INTERNAL_RESOURCES. */
  records(clientId: string, resource: string): Row[];
  /** Adds rows to a client's resource as if they appeared upstream (new reviews for a digest, say). */
  insertRows(clientId: string, resource: string, rows: Row[]): void;
  /**
   * A day passes upstream: new reviews (some bad, one a late arrival) and a new observation of every keyword
   * (movers, a climb into the top 3, a fall out of the top 10, a new best), for one client or all.
   */
  advance(clientId?: string): AdvanceSummary[];
  /** Forgets created records, counts, the request log and queued faults; knobs back to the options. */
  reset(): void;
  close(): Promise<void>;
}
