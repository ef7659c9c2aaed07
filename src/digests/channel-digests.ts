import type { CoreServices } from '../services.js';
import type { SubscriptionView } from '../views/digest-status.js';
import { describeFilters } from './filters.js';
import { describeSchedule, nextRunAt } from './schedule.js';

/** A channel's subscriptions with their next runs, as `digest status`, `status` and the Home tab show them. */
export async function channelDigests(
  services: Pick<CoreServices, 'digests' | 'digestQueue'>,
  channel: string,
): Promise<SubscriptionView[]> {
  const subs = await services.digests.channelSubscriptions(channel);
  return Promise.all(
    subs.map(async (sub) => {
      // From the schedule now in force, not from a job scheduler the scheduler role has yet to replace.
      const next = sub.stopped
        ? undefined
        : (nextRunAt(sub.schedule, sub.tz, Date.now()) ??
          (await services.digestQueue.nextRun(channel, sub.kind, sub)));
      const described = {
        sub,
        schedule: describeSchedule(sub.schedule, sub.tz),
        filters: describeFilters(sub.filters),
      };
      return next ? { ...described, next } : described;
    }),
  );
}
