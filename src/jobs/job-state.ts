/** Where an action job is, as its status message and every listing say it. */
export type JobState = 'queued' | 'running' | 'done' | 'failed' | 'needs-attention' | 'cancelled';
