import type { types } from '@slack/bolt';
import type { ApprovalRecord } from '../approvals/record.js';
import type { Button } from './blocks.js';
import { button, plain, section } from './blocks.js';
import { code, escapeMrkdwn, oneLine } from './escape.js';

/** An admin's waiver of a pending client sign-off: the card's button (behind a confirm dialog) and its reason form. Pure. */

export const APPROVAL_WAIVE_ID = 'approval_waive';
export const WAIVE_VIEW_ID = 'signoff_waive';
const REASON = 'reason';
/** The reason is audited and shown on the card: a sentence, not an essay. */
const REASON_MAX = 300;

/** The waiver button, while the request is pending and its client step open. */
export function waiveButton(record: ApprovalRecord): Button[] {
  if (
    record.state !== 'pending' ||
    (record.signoff ?? 'agency') === 'agency' ||
    record.clientBy ||
    record.waivedBy
  )
    return [];
  return [
    {
      ...button({ text: 'Waive client sign-off', actionId: APPROVAL_WAIVE_ID, value: record.id }),
      confirm: {
        title: plain('Waive the client’s sign-off?'),
        text: plain(
          'Admins only. You give a reason next; it is audited and shown on the card to everyone here.',
        ),
        confirm: plain('Waive'),
        deny: plain('Not yet'),
      },
    },
  ];
}

export function buildWaiveModal(record: ApprovalRecord): types.ModalView {
  return {
    type: 'modal',
    callback_id: WAIVE_VIEW_ID,
    private_metadata: record.id,
    title: plain('Waive client sign-off'),
    submit: plain('Waive'),
    close: plain('Cancel'),
    blocks: [
      section(
        `${escapeMrkdwn(oneLine(record.label))} for *${escapeMrkdwn(oneLine(record.clientLabel))}* (approval ${code(record.id)}) will no longer wait for the client’s sign-off.`,
      ),
      {
        type: 'input',
        block_id: REASON,
        label: plain('Why'),
        element: { type: 'plain_text_input', action_id: REASON, max_length: REASON_MAX, multiline: true },
      },
    ],
  };
}

/** The submitted form's approval id and reason. */
export function readWaiveModal(view: {
  private_metadata: string;
  state: { values: Record<string, Record<string, { value?: string | null }>> };
}): { id: string; reason: string } {
  return { id: view.private_metadata, reason: (view.state.values[REASON]?.[REASON]?.value ?? '').trim() };
}
