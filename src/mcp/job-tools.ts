import { z } from 'zod';
import { toJobState } from '../jobs/index.js';
import type { CoreServices } from '../services.js';

/**
 * `get_job`: a job's state and, once done, its result as data. A guarded action's reference is its approval
 * (`approval-<id>`): pending_approval until an approver decides, then the run's own state.
 */

export const jobSchema = z.object({
  job_id: z.string(),
  client_id: z.string(),
  action: z.string(),
  status: z.enum([
    'queued',
    'running',
    'done',
    'failed',
    'needs_attention',
    'cancelled',
    'pending_approval',
    'rejected',
    'expired',
  ]),
  channel: z.string().nullable(),
  /** The result as data (generate_blog: docs/gateway-api.md §4.5's article shape). */
  result: z.record(z.string(), z.unknown()).nullable(),
  note: z.string().optional(),
});
type JobOut = z.infer<typeof jobSchema>;

/** docs/gateway-api.md §4.5: a generated article as the tool layer returns it. */
function articleShape(record: Record<string, unknown>, ok: boolean) {
  const title = record.post_title ?? record.title;
  return {
    ok,
    article_id: String(record.id ?? ''),
    status: typeof record.status === 'string' ? record.status : 'draft',
    title: typeof title === 'string' ? title : '',
    word_count: typeof record.word_count === 'number' ? record.word_count : 0,
  };
}

async function runOf(services: CoreServices, jobKey: string): Promise<Omit<JobOut, 'job_id'> | undefined> {
  const job = await services.queue.findJob(jobKey);
  if (!job) {
    // Cancelled in Slack before it started: gone from the queue, kept apart for a week.
    const cancelled = await services.queue.cancelledJob(jobKey);
    return cancelled
      ? {
          client_id: cancelled.clientId,
          action: cancelled.action,
          status: 'cancelled',
          channel: cancelled.channel,
          result: null,
          note: 'cancelled before it started; nothing was sent to the gateway',
        }
      : undefined;
  }
  const state = toJobState(await job.getState(), job.returnvalue, job.data.step);
  const status = state === 'needs-attention' ? 'needs_attention' : (state ?? 'queued');
  const record = status === 'done' ? (job.data.result ?? {}) : undefined;
  const result = record ? (job.data.action === 'generate_blog' ? articleShape(record, true) : record) : null;
  return {
    client_id: job.data.clientId,
    action: job.data.action,
    status,
    channel: job.data.replyTo.channel ?? null,
    result,
    ...(status === 'failed' && job.failedReason ? { note: job.failedReason.split(':')[0] ?? '' } : {}),
  };
}

export async function describeJob(services: CoreServices, jobId: string): Promise<JobOut | undefined> {
  const approvalId = /^approval-([a-z0-9]{1,40})$/.exec(jobId)?.[1];
  if (!approvalId) {
    if (!/^[A-Za-z0-9_:.-]{1,200}$/.test(jobId)) return undefined;
    const run = await runOf(services, jobId);
    return run ? { job_id: jobId, ...run } : undefined;
  }
  const record = await services.approvals.get(approvalId);
  if (!record) return undefined;
  const base = {
    job_id: jobId,
    client_id: record.clientId,
    action: record.action,
    channel: record.channel,
    result: null,
  };
  switch (record.state) {
    case 'pending':
      return { ...base, status: 'pending_approval' };
    case 'rejected':
    case 'expired':
    case 'cancelled':
      return { ...base, status: record.state };
    default: {
      const run = record.jobKey ? await runOf(services, record.jobKey) : undefined;
      if (run) return { ...run, job_id: jobId };
      const status = record.state === 'done' ? 'done' : record.state === 'failed' ? 'failed' : 'running';
      return {
        ...base,
        status,
        result: record.recordId ? { id: record.recordId } : null,
      };
    }
  }
}
