import { describe, expect, it } from 'vitest';
import type { ApprovalRecord } from '../../src/approvals/record.js';
import { buildApprovalCard, buildApprovalRefusal } from '../../src/views/approval-card.js';

const record = (more: Partial<ApprovalRecord> = {}): ApprovalRecord => ({
  id: 'aabc123',
  state: 'pending',
  action: 'send_prospect_email',
  label: 'Prospect email',
  clientId: 'acme',
  clientLabel: 'Acme <!channel>',
  fields: {},
  hash: 'f'.repeat(64),
  preview: {
    kind: 'email',
    to: 'x@y.example <@U999>',
    subject: '<https://evil.example|click>',
    text: 'a'.repeat(5_000),
  },
  requestedBy: 'UMEMBER',
  channel: 'C1',
  createdAt: Date.UTC(2026, 0, 2, 3, 4),
  expiresAt: Date.UTC(2026, 0, 3, 3, 4),
  runs: 0,
  ...more,
});

const all = (m: { text: string; blocks: unknown[] }) => `${m.text}\n${JSON.stringify(m.blocks)}`;

describe('the approval card', () => {
  it('shows the payload escaped, its hash and expiry, and the three buttons with a confirm on Approve', () => {
    const card = buildApprovalCard(record());
    const text = all(card);
    expect(text).not.toContain('<!channel>');
    expect(text).not.toContain('<@U999>');
    expect(text).not.toContain('<https://evil');
    expect(text).toContain('`ffffffffffff`');
    expect(text).toContain('expires 2026-01-03 03:04 UTC');
    expect(text).toContain('approval_approve');
    expect(text).toContain('"confirm"');
    expect(text).toContain('approval_reject');
    expect(text).toContain('approval_cancel');
    for (const block of card.blocks) {
      const t = (block as { text?: { text: string } }).text?.text ?? '';
      expect(t.length).toBeLessThanOrEqual(3_000);
    }
  });

  it('loses its buttons once decided, and offers Retry only after a failure', () => {
    const rejected = all(buildApprovalCard(record({ state: 'rejected', decidedBy: 'UADMIN', decidedAt: 0 })));
    expect(rejected).toContain('Rejected by <@UADMIN>');
    // Its first words say where it stands, not that it still needs approval.
    expect(rejected).toContain('*Rejected:* Prospect email');
    expect(rejected).not.toContain('Approval needed');
    expect(all(buildApprovalCard(record({ state: 'done', decidedBy: 'UADMIN' })))).toContain(
      '*Approved and done:* Prospect email',
    );
    expect(rejected).not.toContain('approval_');
    const failed = all(buildApprovalCard(record({ state: 'failed', decidedBy: 'UADMIN', outcome: 'x' })));
    expect(failed).toContain('approval_retry');
    expect(failed).not.toContain('approval_approve');
  });

  it('names the approvers, people and user groups, in a refusal', () => {
    const text = all(
      buildApprovalRefusal({ kind: 'not-approver', approvers: ['UADMIN', 'SGROUP', '<!here>'] }),
    );
    expect(text).toContain('<@UADMIN>');
    expect(text).toContain('<!subteam^SGROUP>');
    expect(text).not.toContain('<!here>');
  });
});
