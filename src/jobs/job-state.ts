import type { ActionJobOutcome, JobStep } from './job-data.js';

/** Where an action job is, as its status message and every listing say it. */
export type JobState = 'queued' | 'running' | 'done' | 'failed' | 'needs-attention' | 'cancelled';

/** A BullMQ job's state, read as a person should see it (undefined: BullMQ no longer knows the job). */
export function toJobState(
  bullState: string,
  returnvalue: ActionJobOutcome | undefined,
  step?: JobStep,
): JobState | undefined {
  switch (bullState) {
    case 'completed':
      return returnvalue?.outcome === 'needs-attention' ? 'needs-attention' : 'done';
    case 'failed':
      // A job that failed after its POST left may have run: a person has to look, as its thread says.
      return step === 'posting' ? 'needs-attention' : 'failed';
    case 'active':
      return 'running';
    case 'waiting':
    case 'prioritized':
    case 'delayed':
    case 'waiting-children':
      return 'queued';
    default:
      return undefined;
  }
}
