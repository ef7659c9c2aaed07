import type { AccessError, AccessPolicy } from '../access/index.js';
import type { ActionEntry, Catalogue } from '../actions/index.js';
import type { BindingStore, ChannelBinding } from '../bindings/index.js';
import type { GatewayClient, Row } from '../gateway/index.js';
import type { ActionQueue, ApprovalHooks, JobApproval, RequestFinished } from '../jobs/index.js';
import type { AppLogger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { Redis } from '../redis/connection.js';
import type { ReplyTarget, ThreadOutbound } from '../slack/reply-target.js';
import type { ActionLedger } from '../store/index.js';
import type { UserError } from './user-error.js';

declare const admitted: unique symbol;

/**
 * Who asks for which action, in which bound channel, for which client: made by `ActionRequests.admit` once per
 * Slack request (the action is known, the person may ask for it, the channel is bound to the client the form or
 * button was made for). The request's later steps in the same Slack request take it instead of checking again.
 */
export interface Admitted {
  readonly requester: string;
  readonly entry: ActionEntry;
  /** The reply target's channel and the client it is bound to. */
  readonly binding: ChannelBinding;
  /**
   * The guarded rule is met: an approved approval's run (its fields checked at the ask are not read again), or the
   * ask for the approval itself (the run waits for an approver).
   */
  readonly approved: boolean;
  readonly [admitted]: true;
}

/** What `admit` checks: who asks for what, and the channel to read or its binding as this Slack request read it. */
export type Admission = {
  requester: string;
  entry: ActionEntry;
  approved?: boolean;
  /** The client the form or button was made for: a channel bound to another since refuses. */
  clientId?: string | undefined;
} & ({ channel: string } | { binding: ChannelBinding });

/**
 * Each surface's dedupe key for a request: it comes from the payload itself, and it is the job's
 * id, so a redelivered command, a double click or a double submission is one job.
 */
export const requestKeys = {
  /** A slash command: its trigger id. */
  command: (triggerId: string) => `cmd-${triggerId}`,
  /** A modal submission: its view id. */
  form: (viewId: string) => `view-${viewId}`,
  /** "Generate another": the parked request's id. */
  duplicate: (pendingId: string) => `dup-${pendingId}`,
  /** "Retry" of a job: one retry per job. */
  retry: (jobKey: string) => `retry-${jobKey}`,
  /** A Workflow Builder step's run: its execution id (a redelivered function_executed is one job). */
  step: (executionId: string) => `wf-${executionId}`,
} as const;

/** The request's own parts, beside who asks for what where (`Admitted`). */
export type RequestDetails = Omit<ActionRequest, 'requester' | 'clientId' | 'action'>;

/**
 * Someone asks for an action: from a command, a form, a button, an approval, a digest or an
 * assistant tool. Nothing here is a Slack payload: the surface turns its payload into this, and the answer
 * (`RequestResult`) back into whatever it shows.
 */
export interface ActionRequest {
  /** Who asks (a Slack user id): checked by the access policy, named in the job's messages. */
  requester: string;
  /**
   * The client the request was made for. The reply target's channel must still be bound to it: a form filled
   * for one client must not run on another. Undefined: the channel's client now (a form from an older version).
   */
  clientId: string | undefined;
  /** The gateway's action name. */
  action: string;
  fields: Record<string, unknown>;
  /** Where the job reports: its status message and its replies. */
  replyTo: ReplyTarget;
  /** The surface's own dedupe key (`requestKeys`): also the job's id, so a redelivery is one job. */
  requestKey: string;
  /** The person saw the earlier record and asked for another: no duplicate question. */
  confirmedDuplicate?: boolean;
  /** The job this one retries. */
  retryOf?: string;
  /** A guarded action runs only with an approved approval. */
  approval?: JobApproval;
  /** Asked for through an assistant tool: its messages say so. */
  viaAssistant?: boolean;
}

/**
 * An earlier identical request or record: the request is parked and the person asked first
 * (docs/gateway-api.md §4.4 rule 1).
 */
interface DuplicateQuestion {
  entry: ActionEntry;
  earlier: Row;
  fields: Record<string, unknown>;
  /** The parked request's id (pending.ts): what "Generate another" and "Cancel" carry. */
  pendingId: string;
}

export type RequestResult =
  /** Queued; `ahead` jobs of other clients go first. */
  | { kind: 'queued'; jobKey: string; ahead: number }
  /** The same request delivered twice (Slack redelivery, a double click): the first delivery's job stands. */
  | { kind: 'repeat'; jobKey: string }
  | { kind: 'ask'; question: DuplicateQuestion }
  /** Not run, and why, for the person: no such action, not bound, another client, not allowed, guarded. */
  | { kind: 'refused'; error: UserError | AccessError };

/** What the request layer works with: core parts (no Slack listener or payload) and the outbound's thread messages. */
export interface RequestDeps {
  redis: Redis;
  /** The Redis key prefix (REDIS_PREFIX). */
  prefix: string;
  logger: AppLogger;
  gateway: GatewayClient;
  catalogue(): Promise<Catalogue>;
  bindings: BindingStore;
  queue: ActionQueue;
  ledger: ActionLedger;
  metrics: Metrics;
  access: AccessPolicy;
  /** Posts the job's status message where the request's reply target says, before the job is queued. */
  outbound: ThreadOutbound;
  /** The approvals feature's side of the queue (a cancelled approved job cancels its approval). */
  approvalHooks: ApprovalHooks;
  /** "Request finished" (jobs/action-worker.ts): a job cancelled before it started has ended too. */
  requestFinished?: RequestFinished;
}
