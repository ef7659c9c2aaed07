import type { RequestResult } from '../requests/index.js';
import { requestKeys, UserError, UserErrorCode } from '../requests/index.js';
import type { CoreServices } from '../services.js';
import { claimOnce, releaseClaim } from '../store/index.js';
import { type DecideOutcome, decideApproval } from './decide.js';

/**
 * "Retry" of a job (after `status: "error"`, or "Retry anyway" after an outcome nobody could tell), from any
 * surface: a person decides, and one new job runs however many times it is clicked. Only the requester, admins
 * and approvers may. An approved job runs again only on an approver's decision, so its retry is the approval's
 * own decision (decide.ts): that is why this lives with the approvals, above the request layer.
 */

export type RetryOutcome =
  | { kind: 'decision'; outcome: DecideOutcome }
  | { kind: 'request'; result: RequestResult }
  /** Retried already (a double click): the first click's job stands. */
  | { kind: 'repeat' };

type Deps = Pick<
  CoreServices,
  | 'approvals'
  | 'access'
  | 'config'
  | 'requests'
  | 'outbound'
  | 'logger'
  | 'redis'
  | 'queue'
  | 'bindings'
  | 'signoffs'
>;

export interface RetryInput {
  jobKey: string;
  by: string;
  /** The channel the click came from, when it came from one: a message's button names its own channel's job. */
  channel: string | undefined;
  /** The click's own id (Slack's trigger id), when the surface has one. */
  click?: string;
}

/** A UserError or AccessError when the job is unknown, another channel's or not the person's to retry. */
export async function retryJob(deps: Deps, input: RetryInput): Promise<RetryOutcome> {
  const { jobKey, by } = input;
  const job = await deps.queue.findJob(jobKey);
  if (!job) {
    throw new UserError(
      UserErrorCode.Expired,
      'That job is no longer known, so it cannot be retried from here.',
      {
        hint: 'Run the command again.',
      },
    );
  }
  const { data } = job;
  if (input.channel !== undefined && input.channel !== data.replyTo.channel) {
    throw new UserError(UserErrorCode.WrongClient, 'That job belongs to another channel.', {
      hint: 'Retry it from the channel where it ran.',
    });
  }
  if (data.approval) {
    const outcome = await decideApproval(deps, {
      id: data.approval.id,
      channel: data.replyTo.channel,
      by,
      to: 'approved',
      ...(input.click ? { click: input.click } : {}),
    });
    return { kind: 'decision', outcome };
  }
  // Before the claim: a refused click must not use up the one retry.
  await deps.access.requireRetry(by, data.requestedBy);
  const claim = `retry:${jobKey}`;
  if (!(await claimOnce(deps.redis, deps.config.redis.prefix, claim, 86_400))) return { kind: 'repeat' };
  try {
    const result = await deps.requests.submit({
      requester: by,
      clientId: data.clientId,
      action: data.action,
      fields: data.fields,
      replyTo: data.replyTo,
      requestKey: requestKeys.retry(jobKey),
      confirmedDuplicate: true,
      retryOf: jobKey,
    });
    if (result.kind === 'refused') throw result.error;
    return { kind: 'request', result };
  } catch (error) {
    // Nothing was queued (the queue's own job id guards a retry that was): let the next click try again.
    await releaseClaim(deps.redis, deps.config.redis.prefix, claim).catch(() => {});
    throw error;
  }
}
