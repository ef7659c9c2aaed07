import { createHash } from 'node:crypto';
import { DelayedError, type Job } from 'bullmq';
import type { DigestKind } from './filters.js';
import type { Schedule } from './schedule.js';

/**
 * Due digests spread over a window (DIGEST_SPREAD) instead of all at the due minute, and small clients before
 * large. A daily or weekly run is placed once, when its job first starts: its slot in the window is a hash of
 * (channel, kind), so the slots are spread evenly, stable from one period to the next and need no
 * coordination between workers; its BullMQ priority follows the rows its last run read, so whenever several
 * runs are ready the small ones are taken first and a large client's long walk never holds up a queue of small
 * ones. `every` schedules (seconds apart) are not spread.
 */

/**
 * A run whose slot has passed (a backlog, a worker that was down) waits this long per step of its priority
 * before it is ready: runs that fell due together are all placed by then, and the small ones are ready first
 * rather than whoever was first in the queue.
 */
const SETTLE_MS = 100;

/** Where a (channel, kind) falls in the window, from 0 to spreadMs. */
export function spreadOffsetMs(channel: string, kind: DigestKind, spreadMs: number): number {
  if (spreadMs <= 0) return 0;
  const hash = createHash('sha256').update(`${channel}\u0000${kind}`).digest().readUInt32BE(0);
  return Math.floor((hash / 2 ** 32) * spreadMs);
}

/**
 * BullMQ priority from the rows the last run read (1 is taken first): one step per tenfold, so 100 rows
 * and 5,000 are close, 120,000 well behind. Unknown (a first run) counts as small.
 */
function sizePriority(rows: number | undefined): number {
  return 1 + Math.floor(Math.log10(Math.max(1, rows ?? 1)));
}

/**
 * Places a scheduled run in the window: moves the job to its slot (or just after now, when the slot has passed) with its
 * priority, and throws DelayedError so the worker lets go of it without spending an attempt. A job placed
 * before (its priority is set) runs.
 */
export async function placeInWindow(
  job: Job,
  token: string | undefined,
  run: { channel: string; kind: DigestKind; schedule: Schedule; spreadMs: number; lastRows?: number },
): Promise<void> {
  if (run.schedule.kind === 'every' || run.spreadMs <= 0 || (job.priority ?? 0) > 0) return;
  const due = job.opts.prevMillis ?? job.timestamp;
  const slot = due + spreadOffsetMs(run.channel, run.kind, run.spreadMs);
  const priority = sizePriority(run.lastRows);
  await job.changePriority({ priority });
  await job.moveToDelayed(Math.max(slot, Date.now() + SETTLE_MS * priority), token);
  throw new DelayedError();
}
