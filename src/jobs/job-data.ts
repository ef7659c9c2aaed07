import type { ApprovalState } from '../metrics.js';
import type { ReplyTarget } from '../slack/reply-target.js';

/**
 * What an action job carries and returns. A job's id is its dedupe key, so a redelivered command or a double
 * click is one job; job data never holds a key or a token.
 */

export const ACTION_QUEUE = 'actions';
export const ACTION_JOB_NAME = 'action';

export type JobStep = 'queued' | 'posting' | 'done';

/** The approval a guarded action's job carries. */
export interface JobApproval {
  id: string;
  state: ApprovalState;
}

export interface ActionJobData {
  jobKey: string;
  action: string;
  clientId: string;
  clientLabel: string;
  fields: Record<string, unknown>;
  /** Where the job reports (reply-target.ts): a Slack channel, or any other kind of target. */
  replyTo: ReplyTarget;
  requestedBy: string;
  /** The status message the reply target shows (Slack: its ts); results go under it. */
  statusTs?: string;
  confirmedDuplicate?: boolean;
  retryOf?: string;
  /** A guarded action's approval; the worker refuses a guarded job without an approved one (approval-gate.ts). */
  approval?: JobApproval;
  enqueuedAt: number;
  /** Set by enqueue, so it can tell its own job from an older one with the same id. */
  enqueueId?: string;
  /** The fingerprint this job holds in flight (store/claims.ts); the worker gives it back when the job ends. */
  holdsFingerprint?: string;
  step?: JobStep;
  startedAt?: number;
  fingerprint?: string;
  /**
   * Step "posting" only: from when a reconciliation that finds nothing may be believed. Until then the POST
   * may still be in flight or still being worked on by the gateway. Unset: the POST's own timeout from
   * `startedAt`, as for a run that died mid-POST.
   */
  trustAbsentAfter?: number;
  /** Set once the action succeeded, so a re-run only finishes the Slack side. */
  recordId?: string;
  result?: Record<string, unknown>;
  /** Asked for through an assistant tool: its messages say so. */
  viaAssistant?: boolean;
}

/** What a processed job returns (BullMQ `returnvalue`). */
export interface ActionJobOutcome {
  outcome: 'done' | 'needs-attention';
  recordId?: string;
  reconciled?: boolean;
}
