import type { CoreServices } from '../services.js';
import { buildApprovalHistory } from '../views/approval-history.js';
import type { SlackMessage } from '../views/blocks.js';
import type { ApprovalPreview } from './record.js';

const PAGE = 10;

/** One page of the channel's audit log (audit.ts), for `/gateway history` and its Older button; `before`: the last entry id of the page before. */
export async function historyPage(
  services: Pick<CoreServices, 'approvals'>,
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
