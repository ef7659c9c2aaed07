import type { ActionJobData, ActionQueue } from './queue.js';

/**
 * What the web role calls for the Retry and "Retry anyway" buttons: a NEW job (the old one stays as it
 * ended, for the record) with `retryOf` set and the step reset. Its key comes from the click's dedupe key, so
 * a double click is one retry. "Retry anyway" is a person's decision after an unknown outcome: the new job
 * posts without reconciling against the old one.
 */

export type RetryResult =
  | { ok: true; jobId: string; duplicate: boolean; ahead: number }
  | { ok: false; code: 'job_not_found' | 'job_not_finished'; message: string };

export async function retryJob(
  queue: ActionQueue,
  jobKey: string,
  options: { anyway: boolean; by: string; jobKey?: string },
): Promise<RetryResult> {
  const old = await queue.findJob(jobKey);
  if (!old) {
    return {
      ok: false,
      code: 'job_not_found',
      message: 'That job is too old to retry; run the command again.',
    };
  }
  const state = await old.getState();
  if (state !== 'completed' && state !== 'failed') {
    return { ok: false, code: 'job_not_finished', message: 'That job has not finished yet.' };
  }
  const {
    step: _step,
    startedAt: _startedAt,
    fingerprint: _fingerprint,
    trustAbsentAfter: _trustAbsentAfter,
    recordId: _recordId,
    result: _result,
    ...kept
  } = old.data;
  const data: ActionJobData = {
    ...kept,
    jobKey: options.jobKey ?? `${jobKey}:retry${options.anyway ? '-anyway' : ''}`,
    requestedBy: options.by,
    retryOf: jobKey,
    enqueuedAt: Date.now(),
    step: 'queued',
    ...(options.anyway ? { confirmedDuplicate: true } : {}),
  };
  const queued = await queue.enqueue(data);
  return { ok: true, jobId: queued.jobId, duplicate: queued.duplicate, ahead: queued.ahead };
}
