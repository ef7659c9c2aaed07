import { buildJobList } from '../views/job-list.js';
import type { CommandSpec } from './context.js';

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
        jobs.map((job) => ({ ...job, label: catalogue.byAction(job.action)?.label ?? job.action })),
      ),
    );
  },
};
