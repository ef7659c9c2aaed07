import { AccessError } from '../access/index.js';
import type { ActionEntry } from '../actions/index.js';
import type { ActionJobData, ActionQueue } from '../jobs/index.js';
import { releaseInFlight } from '../store/index.js';
import { actionTitle } from '../views/action-title.js';
import { buildJobStatus, type JobWait } from '../views/job-status.js';
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
import type { ActionRequest, RequestDeps, RequestResult } from './request.js';
import { notBoundError, type UserError } from './user-error.js';

type Refusal = UserError | AccessError;

/**
 * The one way to ask for an action: the action is known, the reply target's channel is still bound to the
 * request's client, the person may run it, a guarded action has its approval, no identical request or record
 * makes it a duplicate (docs/gateway-api.md §4.4 rule 1); then the status message goes out and the job is
 * queued. The worker does the POST, and gives the fingerprint back when the job ends.
 */
export class ActionRequests {
  constructor(private readonly deps: RequestDeps) {}

  /**
   * What would refuse `requester` running `entry`, before any form opens (someone who may not run it should
   * not fill one in first). The request itself checks the same again.
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

  async submit(request: ActionRequest): Promise<RequestResult> {
    const { deps } = this;
    const refused = (error: Refusal): RequestResult => ({ kind: 'refused', error });
    const entry = (await deps.catalogue()).byAction(request.action);
    if (!entry) return refused(unavailableAction(request.action));
    const binding = await deps.bindings.get(request.replyTo.channel);
    if (!binding) return refused(notBoundError(deps.access.admins(), request.requester));
    if (request.clientId !== undefined && binding.clientId !== request.clientId)
      return refused(reboundChannel());
    const approved = request.approval?.state === 'approved';
    const refusal = await this.refusal(request.requester, entry, approved);
    if (refusal) return refused(refusal);
    const missing = missingField(entry, request.fields);
    if (missing) return refused(missing);
    const unknown = await unknownReference(deps, entry, binding.clientId, request.fields, approved);
    if (unknown) return refused(unknown);

    const clientId = binding.clientId;
    const checked = await claimOrFindEarlier(deps, entry, clientId, request);
    if (checked.kind === 'ask') {
      const pendingId = await parkRequest(deps.redis, deps.prefix, { ...request, clientId });
      return {
        kind: 'ask',
        question: { entry, earlier: checked.earlier, fields: request.fields, pendingId },
      };
    }
    const { holds } = checked;
    const release = async () => {
      if (!holds) return;
      await releaseInFlight(
        deps.redis,
        deps.prefix,
        inFlightId(entry, clientId, holds),
        request.requestKey,
      ).catch((error: unknown) => deps.logger.warn('could not release an in-flight claim', error));
    };
    const target = request.replyTo;
    const status = {
      title: actionTitle(entry, request.fields),
      clientLabel: binding.clientLabel,
      requestedBy: request.requester,
      ...(request.retryOf ? { retryOf: request.retryOf } : {}),
      ...(request.viaAssistant ? { viaAssistant: true } : {}),
    };
    let result: Awaited<ReturnType<ActionQueue['enqueue']>>;
    let statusTs: string | undefined;
    // The status message goes out with the queue position once the job is admitted and before a worker can
    // take it (see enqueue): an update from here later could overwrite what a worker in another process said.
    // It says why the job waits and about how long, with a Cancel button while it has not started.
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
      statusTs = await deps.reporter.post(target, queued);
      return statusTs;
    };
    try {
      const data: ActionJobData = {
        jobKey: request.requestKey,
        action: entry.action,
        clientId,
        clientLabel: binding.clientLabel,
        fields: request.fields,
        replyTo: target,
        requestedBy: request.requester,
        confirmedDuplicate: request.confirmedDuplicate,
        retryOf: request.retryOf,
        ...(request.approval ? { approval: request.approval } : {}),
        enqueuedAt: Date.now(),
        ...(holds ? { holdsFingerprint: holds } : {}),
        ...(request.viaAssistant ? { viaAssistant: true } : {}),
      };
      try {
        result = await deps.queue.enqueue(data, announce);
      } catch (error) {
        // Redis refused after the message went out: it says the job failed instead of waiting forever.
        const failed = buildJobStatus({
          ...status,
          state: 'failed',
          summary: 'could not be queued; nothing ran. Try again.',
        });
        if (statusTs)
          await deps.reporter
            .update(target, statusTs, failed)
            .catch((e: unknown) => deps.logger.warn('could not mark an unqueued job', e));
        throw error;
      }
    } catch (error) {
      await release();
      throw error;
    }
    deps.metrics.actionsEnqueued.inc({ action: entry.action, repeat: String(result.repeat) });
    if (result.keyInUse) {
      // An older job already has this request's id (a Retry clicked after its claims expired): nothing was
      // queued, so the "queued" message goes and the person is told where that job is.
      await release();
      if (statusTs)
        await deps.reporter
          .remove(target, statusTs)
          .catch((error: unknown) => deps.logger.warn('could not remove an unqueued job message', error));
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

  /** Cancels a queued job for its requester or an admin; a UserError says why not (started, gone, not theirs). */
  cancel(jobKey: string, by: string, channel: string | undefined): Promise<void> {
    return cancelJob(this.deps, { jobKey, by, channel });
  }

  /** A request parked behind the duplicate question, taken once; undefined when answered already or expired. */
  takePending(pendingId: string): Promise<ActionRequest | undefined> {
    return takePendingRequest(this.deps.redis, this.deps.prefix, pendingId);
  }
}
