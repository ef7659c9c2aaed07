import type { ApprovalPreview } from '../approvals/record.js';
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
  const shown = entries.slice(0, PAGE);
  // The audit line keeps the hash; the approval's record says what that payload was (a page: 10 reads at most).
  const previews = new Map<string, ApprovalPreview>();
  await Promise.all(
    [...new Set(shown.map((e) => e.approval))].map(async (id) => {
      const record = await services.approvals.get(id);
      if (record) previews.set(id, record.preview);
    }),
  );
  return buildApprovalHistory(shown, { more: entries.length > PAGE, page, previews });
}

export const historyCommand: CommandSpec = {
  name: 'history',
  usage: '/gateway history',
  summary: 'This channel’s approvals and guarded actions: who, what, when, payload hash, outcome',
  example: '/gateway history',
  group: 'Jobs & approvals',
  // `history 2` is no page number: the words are reported as ignored (the pages are behind Older and Newer).
  takesNoArguments: true,
  async run(ctx) {
    await ctx.reply(await historyPage(ctx.services, ctx.channel, 1));
  },
};
