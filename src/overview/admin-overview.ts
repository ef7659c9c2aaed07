import type { ChannelBinding } from '../bindings/index.js';
import type { CoreServices } from '../services.js';
import type { HomeAdmin } from '../views/home.js';

/**
 * What an admin's overview adds: the queue's depth and oldest wait, the workers, the approvers, and every
 * binding (read once for the overview, which lists them as channels too).
 */
export async function adminOverview(
  services: Pick<CoreServices, 'queue' | 'access' | 'config'>,
  bindings: ChannelBinding[],
): Promise<HomeAdmin> {
  const { queue } = services.queue;
  const [counts, oldest, workers, approvers] = await Promise.all([
    queue.getJobCounts('waiting', 'prioritized', 'active', 'delayed', 'failed'),
    queue.getJobs(['waiting', 'prioritized'], 0, 0, true).catch(() => []),
    queue.getWorkersCount().catch(() => undefined),
    services.access.otherApprovers('').catch(() => [...services.config.approvers]),
  ]);
  const first = oldest[0];
  return {
    queue: {
      waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0),
      active: counts.active ?? 0,
      delayed: counts.delayed ?? 0,
      failed: counts.failed ?? 0,
    },
    ...(first ? { oldestWaitMs: Math.max(0, Date.now() - first.timestamp) } : {}),
    ...(workers === undefined ? {} : { workers }),
    admins: services.access.admins(),
    approvers,
    bindings,
  };
}
