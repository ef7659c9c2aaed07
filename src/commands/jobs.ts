import { failureCode } from '../jobs/index.js';
import { closestName } from '../reads/index.js';
import { buildIgnoredWords } from '../views/error-message.js';
import { buildJobList } from '../views/job-list.js';
import { actionTitle } from '../views/template.js';
import type { CommandSpec } from './command-context.js';

/** How many jobs `jobs` lists, and `jobs all` (the channel index keeps the newest 100). */
const SHORT = 20;
const ALL = 100;

export const jobsCommand: CommandSpec = {
  name: 'jobs',
  usage: '/gateway jobs [all]',
  summary: 'This channel’s queued, running and recent jobs (the newest 20; `all`: up to 100)',
  example: '/gateway jobs',
  group: 'Jobs & approvals',
  local: true,
  async run(ctx) {
    const allAt = ctx.args.findIndex((t) => t.kind === 'word' && t.value.toLowerCase() === 'all');
    const all = allAt >= 0;
    const ignored = ctx.args.filter((_, i) => i !== allAt);
    const { jobs, total } = await ctx.services.queue.channelJobs(ctx.channel, all ? ALL : SHORT);
    const catalogue = await ctx.services.catalogue();
    await ctx.reply(
      buildJobList({
        all,
        total,
        jobs: jobs.map((job) => {
          const entry = catalogue.byAction(job.action) ?? { label: job.action };
          return {
            title: actionTitle(entry, job.fields),
            requestedBy: job.requestedBy,
            state: job.state,
            enqueuedAt: job.enqueuedAt,
            ...(job.finishedAt ? { finishedAt: job.finishedAt } : {}),
            ...(job.recordId ? { recordId: job.recordId } : {}),
            // A failure's code only: its message can name the gateway's address.
            ...(job.failedReason ? { failedReason: failureCode(job.failedReason) } : {}),
            ...(job.cancelledBy ? { cancelledBy: job.cancelledBy } : {}),
          };
        }),
      }),
    );
    // Nothing typed is dropped unsaid, as with `status extra words`.
    if (ignored.length > 0) {
      const meant = all
        ? undefined
        : ignored.find((t) => t.kind === 'word' && closestName(t.value, ['all']) === 'all');
      await ctx.reply(buildIgnoredWords('jobs', ignored, ['all'], meant ? 'all' : undefined));
    }
  },
};
