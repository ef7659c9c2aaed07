import { AccessError } from '../access/index.js';
import type { ActionEntry } from '../actions/index.js';
import type { ActionJobData, ActionQueue } from '../jobs/index.js';
import { releaseInFlight } from '../store/index.js';
import { buildJobStatus, type JobWait } from '../views/job-status.js';
import { actionTitle } from '../views/template.js';
import { cancelJob } from './cancel.js';
import { claimOrFindEarlier, inFlightId } from './duplicates.js';
import { parkRequest, takePendingRequest } from './pending.js';
import { unknownReference } from './references.js';
import {
  alreadyQueued,
  guardedRefusal,
  missingField,
  reboundChannel,
  unavailableAction,
} from './refusals.js';
import type {
  ActionRequest,
  Admission,
  Admitted,
  RequestDeps,
  RequestDetails,
  RequestResult,
} from './request.js';
import { notBoundError, type UserError } from './user-error.js';

type Refusal = UserError | AccessError;
const refused = (error: Refusal): RequestResult => ({ kind: 'refused', error });
/** What the queue said, and where the status message went (when one was posted). */
type Enqueued = Awaited<ReturnType<ActionQueue['enqueue']>> & { statusTs?: string };

/** What the person reads in a job's status message about who asked for what, for which client. */
function statusOf(admitted: Admitted, request: RequestDetails) {
  return {
    title: actionTitle(admitted.entry, request.fields),
    clientLabel: admitted.binding.clientLabel,
    requestedBy: admitted.requester,
    ...(request.retryOf ? { retryOf: request.retryOf } : {}),
    ...(request.viaAssistant ? { viaAssistant: true } : {}),
  };
}

/** The job's data: everything the worker needs, frozen at the request (it reads no binding or access again). */
function jobData(admitted: Admitted, request: RequestDetails, holds: string | undefined): ActionJobData {
  return {
    jobKey: request.requestKey,
    action: admitted.entry.action,
    clientId: admitted.binding.clientId,
    clientLabel: admitted.binding.clientLabel,
    fields: request.fields,
    replyTo: request.replyTo,
    requestedBy: admitted.requester,
    confirmedDuplicate: request.confirmedDuplicate,
    retryOf: request.retryOf,
    ...(request.approval ? { approval: request.approval } : {}),
    enqueuedAt: Date.now(),
    ...(holds ? { holdsFingerprint: holds } : {}),
    ...(request.viaAssistant ? { viaAssistant: true } : {}),
  };
}

/**
 * The one way to ask for an action: the action is known, the reply target's channel is still bound to the
 * request's client, the person may run it, a guarded action has its approval (`admit`, once per Slack request),
 * no identical request or record makes it a duplicate (docs/gateway-api.md §4.4 rule 1); then the status
 * message goes out and the job is queued. The worker does the POST, and gives the fingerprint back when the job
 * ends.
 */
export class ActionRequests {
  constructor(private readonly deps: RequestDeps) {}

  /**
   * What would refuse `requester` running `entry` (the action rule alone, with no binding): a button checks it
   * before its form opens, and `admit` checks it with the binding.
   */
  async refusal(requester: string, entry: ActionEntry, approved = false): Promise<Refusal | undefined> {
    if (!entry.available) return unavailableAction(entry.action);
    try {
      await this.deps.access.requireAction(requester, entry);
    } catch (error) {
      if (error instanceof AccessError) return error;
      throw error;
    }
    if (entry.guarded && !approved) return guardedRefusal(entry);
    return undefined;
  }

  /**
   * Who asks for what where, checked once: the channel's binding (read here unless this Slack request read it
   * already), still the client the form or button was made for, and the action rule. Throws the refusal.
   */
  async admit(admission: Admission): Promise<Admitted> {
    const checked = await this.#admission(admission);
    if (checked instanceof Error) throw checked;
    return checked;
  }

  async #admission(admission: Admission): Promise<Admitted | Refusal> {
    const { requester, entry, clientId } = admission;
    const binding =
      'binding' in admission ? admission.binding : await this.deps.bindings.get(admission.channel);
    if (!binding) return notBoundError(this.deps.access.admins(), requester);
    if (clientId !== undefined && binding.clientId !== clientId) return reboundChannel();
    const approved = admission.approved ?? false;
    const refusal = await this.refusal(requester, entry, approved);
    if (refusal) return refusal;
    return { requester, entry, binding, approved } as Admitted;
  }

  /** A request from a surface that has not admitted its person in this Slack request: admitted here, then asked. */
  async submit(request: ActionRequest): Promise<RequestResult> {
    const entry = (await this.deps.catalogue()).byAction(request.action);
    if (!entry) return refused(unavailableAction(request.action));
    const admitted = await this.#admission({
      requester: request.requester,
      entry,
      approved: request.approval?.state === 'approved',
      clientId: request.clientId,
      channel: request.replyTo.channel,
    });
    if (admitted instanceof Error) return refused(admitted);
    return this.submitAdmitted(admitted, request);
  }

  /**
   * A request whose person this Slack request admitted: its fields are checked, the duplicate guard asks or
   * claims, and the job is queued; nothing `admit` checked is read again.
   */
  async submitAdmitted(admitted: Admitted, request: RequestDetails): Promise<RequestResult> {
    const { deps } = this;
    const { entry, binding } = admitted;
    if (request.replyTo.channel !== binding.channel)
      throw new Error('a request reports to the channel it was admitted in');
    // An admission to ask for a guarded action's approval is no run of it: only an approved approval runs one.
    if (entry.guarded && request.approval?.state !== 'approved') return refused(guardedRefusal(entry));
    const missing = missingField(entry, request.fields);
    if (missing) return refused(missing);
    const unknown = await unknownReference(deps, entry, binding.clientId, request.fields, admitted.approved);
    if (unknown) return refused(unknown);
    const asked: ActionRequest = {
      ...request,
      requester: admitted.requester,
      clientId: binding.clientId,
      action: entry.action,
    };
    const checked = await claimOrFindEarlier(deps, entry, binding.clientId, asked);
    if (checked.kind === 'ask') {
      const pendingId = await parkRequest(deps.redis, deps.prefix, asked);
      return {
        kind: 'ask',
        question: { entry, earlier: checked.earlier, fields: request.fields, pendingId },
      };
    }
    const release = () => this.#release(admitted, request.requestKey, checked.holds);
    let result: Enqueued;
    try {
      result = await this.#enqueue(admitted, request, checked.holds);
    } catch (error) {
      await release();
      throw error;
    }
    deps.metrics.actionsEnqueued.inc({ action: entry.action, repeat: String(result.repeat) });
    return this.#outcome(result, request, release);
  }

  /**
   * The job, with its status message posted once it is admitted and before a worker can take it (see enqueue):
   * an update from here later could overwrite what a worker in another process said. The message says why the
   * job waits and about how long, with a Cancel button while it has not started. Redis refusing after the
   * message went out marks it failed instead of waiting forever.
   */
  async #enqueue(admitted: Admitted, request: RequestDetails, holds: string | undefined): Promise<Enqueued> {
    const { deps } = this;
    const status = statusOf(admitted, request);
    let statusTs: string | undefined;
    const announce = async (ahead: number) => {
      const wait: JobWait = await deps.queue.estimateWait(ahead).catch((error: unknown) => {
        deps.logger.warn('could not estimate the wait', error);
        return { ahead };
      });
      // An approved run that starts at once needs no "queued" message: its card already says it was approved
      // and is queued, and the worker posts the run's own message as it starts, beside its POST instead of a
      // Slack round trip before it. One that waits says why and for how long, with Cancel, as any job does.
      if (request.approval && wait.ahead === 0 && !wait.ms && !wait.slowed) return undefined;
      const queued = buildJobStatus({ ...status, state: 'queued', wait, cancelKey: request.requestKey });
      statusTs = await deps.outbound.post(request.replyTo, queued);
      return statusTs;
    };
    try {
      const result = await deps.queue.enqueue(jobData(admitted, request, holds), announce);
      return statusTs ? { ...result, statusTs } : result;
    } catch (error) {
      const failed = buildJobStatus({
        ...status,
        state: 'failed',
        summary: 'could not be queued; nothing ran. Try again.',
      });
      if (statusTs)
        await deps.outbound
          .update(request.replyTo, statusTs, failed)
          .catch((e: unknown) => deps.logger.warn('could not mark an unqueued job', e));
      throw error;
    }
  }

  /** What the queue said, as the request's result; a claim that belongs to no job is given back. */
  async #outcome(
    result: Enqueued,
    request: RequestDetails,
    release: () => Promise<void>,
  ): Promise<RequestResult> {
    if (result.keyInUse) {
      // An older job already has this request's id (a Retry clicked after its claims expired): nothing was
      // queued, so the "queued" message goes and the person is told where that job is.
      await release();
      if (result.statusTs)
        await this.deps.outbound
          .remove(request.replyTo, result.statusTs)
          .catch((error: unknown) =>
            this.deps.logger.warn('could not remove an unqueued job message', error),
          );
      return refused(alreadyQueued(request.requestKey, request.retryOf));
    }
    if (result.repeat) {
      // The same request reached us twice: the first one's message stands and this one posted none. A claim
      // taken here belongs to no job (the first one's job has ended and given its own back).
      await release();
      return { kind: 'repeat', jobKey: result.jobId };
    }
    return { kind: 'queued', jobKey: result.jobId, ahead: result.ahead };
  }

  /** Gives back the in-flight claim this request took, if it took one. */
  async #release(admitted: Admitted, requestKey: string, holds: string | undefined): Promise<void> {
    if (!holds) return;
    const { deps } = this;
    const id = inFlightId(admitted.entry, admitted.binding.clientId, holds);
    await releaseInFlight(deps.redis, deps.prefix, id, requestKey).catch((error: unknown) =>
      deps.logger.warn('could not release an in-flight claim', error),
    );
  }

  /** Cancels a queued job for its requester or an admin; a UserError says why not (started, gone, not theirs). */
  cancel(jobKey: string, by: string, channel: string | undefined): Promise<void> {
    return cancelJob(this.deps, { jobKey, by, channel });
  }

  /** A request parked behind the duplicate question, taken once; undefined when answered already or expired. */
  takePending(pendingId: string): Promise<ActionRequest | undefined> {
    return takePendingRequest(this.deps.redis, this.deps.prefix, pendingId);
  }
}
