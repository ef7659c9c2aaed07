/**
 * What the bot reads or writes of BullMQ's own Redis structures, all here: none of it is BullMQ's public API,
 * so a BullMQ upgrade checks this file (and the tests that use it: jobs-rate, jobs-queue, jobs-overlap).
 * Written against bullmq 6.7.0, pinned exactly (its `src/commands/*.lua` and `QueueKeys`);
 * test/integration/bullmq-contract.test.ts fails when an upgrade changes any of it.
 *
 * - Keys: `<prefix>:<queue>:wait` (a list), `:prioritized` (a sorted set), `:limiter` (the rate limiter's
 *   counter, whose TTL is what is left of the window) and `<prefix>:<queue>:<jobId>` (the job's hash; its
 *   `data` field is the job's data as JSON).
 * - A prioritized job's score is `priority × 2^32 + a counter`, so the jobs that start before priority `p`
 *   are those scoring below `(p + 1) × 2^32`.
 * - Priorities run from 1 to 2^21 − 1 (`MAX_PRIORITY`): BullMQ refuses 2^21 itself.
 */

export const MAX_PRIORITY = 2_097_151;

/** The factor of a prioritized job's score (see above). */
export const PRIORITY_SCORE_FACTOR = 4_294_967_296;

export function bullKeys(prefix: string, queue: string) {
  const base = `${prefix}:${queue}`;
  return {
    wait: `${base}:wait`,
    prioritized: `${base}:prioritized`,
    limiter: `${base}:limiter`,
    /** The hash a job is kept in. */
    job: (jobId: string) => `${base}:${jobId}`,
  };
}
