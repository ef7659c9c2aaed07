import { describe, expect, it } from 'vitest';
import type { ApprovalRecord } from '../../src/approvals/record.js';
import { validateHomeView } from '../../src/local/fake-slack/block-kit-limits.js';
import { buildHomeNotForYou, buildHomeView, type HomeData } from '../../src/views/home.js';

const record = (i: number, more: Partial<ApprovalRecord> = {}): ApprovalRecord => ({
  id: `a${i}`,
  state: 'pending',
  action: 'deploy_blog',
  label: `Blog deploy <!channel> ${'x'.repeat(4_000)}`,
  clientId: 'acme',
  clientLabel: 'Acme <@U999>',
  fields: {},
  hash: 'f'.repeat(64),
  preview: { kind: 'deploy', postId: `p${i}` },
  requestedBy: 'UMEMBER',
  channel: 'C1',
  cardTs: '1700000000.000100',
  createdAt: Date.UTC(2026, 0, 2, 3, 4),
  expiresAt: Date.UTC(2026, 0, 3, 3, 4),
  runs: 0,
  ...more,
});

const empty: HomeData = {
  user: 'UADMIN',
  waiting: { records: [], total: 0 },
  requests: [],
  jobs: { rows: [], total: 0 },
  channels: { rows: [], total: 0 },
  tokens: [],
  workspaceUrl: 'https://agency.slack.com/',
};

const text = (view: { blocks: unknown[] }) => JSON.stringify(view.blocks);

describe('the Home tab view', () => {
  it('says what would fill each empty section, never blank', () => {
    const shown = text(buildHomeView(empty));
    expect(shown).toContain('Nothing waits for your approval');
    expect(shown).toContain('You have asked for no approval lately');
    expect(shown).toContain('No jobs yet');
    expect(shown).toContain('No channel you use is bound to a client yet');
    expect(shown).toContain('You have no assistant-tool tokens');
    expect(shown).not.toContain('For admins');
  });

  it('fits Block Kit’s limits with 500 pending approvals and long texts, escaped, and says how many more', () => {
    const records = Array.from({ length: 500 }, (_, i) => record(i));
    const view = buildHomeView({
      ...empty,
      waiting: { records, total: 500 },
      requests: records.slice(0, 30),
      jobs: {
        rows: Array.from({ length: 10 }, (_, i) => ({
          jobKey: `j${i}`,
          title: 'SEO audit',
          clientLabel: 'Acme',
          channel: 'C1',
          state: i % 2 ? 'queued' : 'failed',
          enqueuedAt: Date.UTC(2026, 0, 2),
        })),
        total: 1_000,
      },
      admin: {
        queue: { waiting: 1, active: 0, delayed: 0, failed: 0 },
        admins: ['UADMIN'],
        approvers: ['UADMIN'],
        bindings: Array.from({ length: 40 }, (_, i) => ({
          channel: `C${i}`,
          clientId: `c${i}`,
          clientLabel: `Client ${i}`,
          boundBy: 'UADMIN',
        })),
      },
    });
    expect(validateHomeView(view)).toEqual([]);
    expect(view.blocks.length).toBeLessThanOrEqual(100);
    const shown = text(view);
    expect(shown).not.toContain('<!channel>');
    expect(shown).not.toContain('<@U999>');
    expect(shown).toContain('and 490 more');
    // However long the label, who asked, the expiry and the link to the card stay in each row.
    const rows = view.blocks.filter((b) => b.type === 'section' && /asked by/.test(JSON.stringify(b)));
    expect(rows).toHaveLength(10);
    for (const row of rows) expect(JSON.stringify(row)).toMatch(/expires .*the card/);
    expect(shown).toContain('and 990 more: `/gateway jobs all`');
    expect(shown).toContain('home_job_cancel');
    expect(shown).toContain('home_job_retry');
    expect(shown).toContain('"confirm"');
  });

  it('counts the requests beyond those read, and says when there may be more still', () => {
    const requests = Array.from({ length: 20 }, (_, i) => record(i));
    const exact = text(buildHomeView({ ...empty, requests, requestCount: { total: 37, atLeast: false } }));
    expect(exact).toContain('…and 32 more: `/gateway history` in their channels');
    const capped = text(buildHomeView({ ...empty, requests, requestCount: { total: 50, atLeast: true } }));
    expect(capped).toContain('…and at least 45 more');
  });

  it('shows guests and other workspaces one short panel with no client or channel', () => {
    const view = buildHomeNotForYou();
    expect(view.blocks).toHaveLength(1);
    expect(text(view)).not.toMatch(/<#|client_id|acme/i);
  });
});
