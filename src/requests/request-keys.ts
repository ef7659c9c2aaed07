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
