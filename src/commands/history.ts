import type { BotServices } from '../services.js';
import { buildApprovalHistory } from '../views/approval-history.js';
import type { SlackMessage } from '../views/blocks.js';
import type { CommandSpec } from './command-context.js';

const PAGE = 10;

/** One page of the channel's audit log (approvals/audit.ts); `before`: the last entry id of the page before. */
export async function historyPage(
  services: BotServices,
  channel: string,
  page: number,
  before?: string,
): Promise<SlackMessage> {
  const entries = await services.approvals.history(channel, PAGE + 1, before);
  return buildApprovalHistory(entries.slice(0, PAGE), { more: entries.length > PAGE, page });
}

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
