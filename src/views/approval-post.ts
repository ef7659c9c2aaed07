import type { types } from '@slack/bolt';
import type { ApprovalRecord } from '../approvals/record.js';
import type { Button } from './blocks.js';
import { button, context, plain, section } from './blocks.js';
import { code, escapeMrkdwn, oneLine } from './escape.js';
import { fitModal, truncate } from './limits.js';

/** A sign-off card's View button and its modal: the post a deploy publishes, as the gateway holds it. Pure. */

export const APPROVAL_VIEW_ID = 'approval_view';
/** A section holds 3,000 characters: the post's text is cut well before, and says so. */
const TEXT_MAX = 2_800;

/** View, on a pending deploy card under a client sign-off (the client approver reads the post there). */
export function viewButton(record: ApprovalRecord): Button[] {
  const { preview } = record;
  if (record.state !== 'pending' || !record.signoff || preview.kind !== 'deploy') return [];
  return [button({ text: 'View', actionId: APPROVAL_VIEW_ID, value: record.id })];
}

const str = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');

export function buildPostModal(
  record: ApprovalRecord,
  row: Record<string, unknown> | undefined,
): types.ModalView {
  const postId = record.preview.kind === 'deploy' ? record.preview.postId : '';
  const title = str(row?.post_title) || str(row?.title);
  const text = str(row?.content) || str(row?.excerpt) || str(row?.body);
  const facts = [
    `*Keyword:* ${escapeMrkdwn(oneLine(str(row?.keyword))) || '—'}`,
    `*Status:* ${escapeMrkdwn(oneLine(str(row?.status))) || '—'}`,
    ...(str(row?.url) ? [`*URL:* ${escapeMrkdwn(oneLine(str(row?.url)))}`] : []),
    ...(str(row?.word_count) ? [`*Words:* ${escapeMrkdwn(str(row?.word_count))}`] : []),
  ];
  const blocks = row
    ? [
        section(
          `*${escapeMrkdwn(oneLine(title || postId))}* (${code(postId)}) for *${escapeMrkdwn(record.clientLabel)}*`,
        ),
        section(facts.join('\n')),
        section(
          text
            ? escapeMrkdwn(truncate(text, TEXT_MAX))
            : 'The gateway holds no text or excerpt for this post.',
        ),
        context(`What approval ${code(record.id)} deploys, as the gateway holds it now.`),
      ]
    : [section(`The gateway no longer has post ${code(postId)} for this client: approving it would fail.`)];
  return fitModal({ type: 'modal', title: plain('Post to deploy'), close: plain('Close'), blocks });
}
