import type { Job } from 'bullmq';
import { processActionJob } from './action-job.js';
import { ACTION_JOB_NAME } from './job-data.js';
import type { ActionJobDeps } from './job-run.js';

/** One processor per job kind: the worker dispatches on the job's name. */

// biome-ignore lint/suspicious/noExplicitAny: a map of processors of different data types
export type JobProcessor = (job: Job<any, any>, token: string | undefined) => Promise<unknown>;

export function actionProcessors(deps: ActionJobDeps): Record<string, JobProcessor> {
  return {
    [ACTION_JOB_NAME]: (job, token) => processActionJob(job, token, deps),
  };
}

export function dispatch(processors: Record<string, JobProcessor>): JobProcessor {
  return async (job, token) => {
    const processor = processors[job.name];
    if (!processor) throw new Error(`job_unknown_kind: no processor for job "${job.name}"`);
    return processor(job, token);
  };
}
