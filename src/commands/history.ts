import { historyPage } from '../approvals/index.js';
import type { CommandSpec } from './command-context.js';

export const historyCommand: CommandSpec = {
  name: 'history',
  usage: '/gateway history',
  summary: 'This channel’s approvals and guarded actions: who, what, when, payload hash, outcome',
  example: '/gateway history',
  group: 'Jobs & approvals',
  local: true,
  // `history 2` is no page number: the words are reported as ignored (the pages are behind Older and Newer).
  takesNoArguments: true,
  async run(ctx) {
    await ctx.reply(await historyPage(ctx.services, ctx.channel, 1));
  },
};
