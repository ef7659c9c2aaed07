import type { Catalogue } from '../actions/index.js';
import type { AppLogger } from '../logger.js';
import type { ThreadOutbound } from '../slack/reply-target.js';
import { buildJobStatus } from '../views/job-status.js';
import { actionTitle } from '../views/template.js';
import type { ActionJobData } from './job-data.js';
import type { ActionQueue } from './queue.js';

export interface ShowWaitDeps {
  queue: ActionQueue;
  outbound: ThreadOutbound;
  catalogue: () => Catalogue | Promise<Catalogue>;
  logger: AppLogger;
}

/**
 * Updates the messages of the jobs that wait (the first `limit`, in the order they start) with why and about
 * how long: called when the whole queue is slowed, so nobody watches a stale "about 5 s". Only while the pause
 * still holds the workers for a while: a job that starts meanwhile must not have its "running" overwritten.
 */
export async function showWait(deps: ShowWaitDeps, options: { limit?: number; holdsForMs: number }) {
  const until = Date.now() + options.holdsForMs - 1_000;
  const prioritized = await deps.queue.queue.getJobs(['prioritized'], 0, (options.limit ?? 20) - 1, true);
  const waiting = await deps.queue.queue.getJobs(['wait'], 0, (options.limit ?? 20) - 1, true);
  const jobs = [...waiting, ...prioritized].slice(0, options.limit ?? 20);
  const catalogue = await deps.catalogue();
  let ahead = 0;
  for (const job of jobs) {
    if (Date.now() > until) return;
    const data = job.data as ActionJobData;
    const here = ahead++;
    if (!data?.statusTs || job.processedOn) continue;
    const wait = await deps.queue.estimateWait(here);
    const entry = catalogue.byAction(data.action) ?? { label: data.action };
    const message = buildJobStatus({
      title: actionTitle(entry, data.fields),
      clientLabel: data.clientLabel,
      requestedBy: data.requestedBy,
      state: 'queued',
      wait,
      cancelKey: data.jobKey,
      ...(data.retryOf ? { retryOf: data.retryOf } : {}),
    });
    await deps.outbound
      .update(data.replyTo, data.statusTs, message)
      .catch((error: unknown) => deps.logger.warn('could not show a wait', error));
  }
}
