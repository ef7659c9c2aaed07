import { failureCode } from '../jobs/job-errors.js';
import { buildJobList } from '../views/job-list.js';
import type { CommandSpec } from './command-context.js';

export const jobsCommand: CommandSpec = {
  name: 'jobs',
  usage: '/gateway jobs',
  summary: 'This channel’s queued, running and recent jobs',
  example: '/gateway jobs',
  group: 'Jobs & approvals',
  async run(ctx) {
    const jobs = await ctx.services.queue.channelJobs(ctx.channel, 20);
    const catalogue = await ctx.services.catalogue();
    await ctx.reply(
      buildJobList(
        jobs.map((job) => ({
          ...job,
          label: catalogue.byAction(job.action)?.label ?? job.action,
          // A failure's code only (the list already shows when): its message can name the gateway's address.
          ...(job.failedReason ? { failedReason: failureCode(job.failedReason) } : {}),
        })),
      ),
    );
  },
};
