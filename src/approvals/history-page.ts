import type { CoreServices } from '../services.js';
import { buildApprovalHistory } from '../views/approval-history.js';
import type { SlackMessage } from '../views/blocks.js';

const PAGE = 10;

/** One page of the channel's audit log (audit.ts), for `/gateway history` and its Older button; `before`: the last entry id of the page before. */
export async function historyPage(
  services: Pick<CoreServices, 'approvals'>,
  channel: string,
  page: number,
  before?: string,
): Promise<SlackMessage> {
  const entries = await services.approvals.history(channel, PAGE + 1, before);
  return buildApprovalHistory(entries.slice(0, PAGE), { more: entries.length > PAGE, page });
}
