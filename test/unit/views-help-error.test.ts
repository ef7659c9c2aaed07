import type { types } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { buildErrorMessage } from '../../src/views/error-message.js';
import { buildCommandHelp, buildHelp, type HelpEntry } from '../../src/views/help.js';

const text = (blocks: types.KnownBlock[]) => JSON.stringify(blocks);

const entries: HelpEntry[] = [
  {
    name: 'use',
    usage: 'use <client_id>',
    summary: 'Binds this channel to a client',
    example: 'use c_acme',
    adminOnly: true,
    group: 'Setup',
  },
  {
    name: 'keywords',
    usage: 'keywords [limit=N]',
    summary: 'Tracked keywords',
    example: 'keywords limit=5',
    group: 'Read',
  },
  {
    name: 'audit',
    usage: 'audit <url>',
    summary: 'Runs a site audit',
    example: '/gateway audit https://acme.example',
    group: 'Actions',
  },
];

describe('buildHelp', () => {
  it('lists one line per command with an example, grouped', () => {
    const out = buildHelp(entries, { isAdmin: true });
    const all = text(out.blocks);
    expect(all).toContain('*Setup*');
    expect(all).toContain(
      '`/gateway keywords [limit=N]` — Tracked keywords · e.g. `/gateway keywords limit=5`',
    );
    expect(all).toContain('e.g. `/gateway audit https://acme.example`');
    expect(all).not.toContain('*Digests*');
    expect(all).not.toContain('(admins)');
  });

  it('marks admin-only commands for people who are not admins', () => {
    const out = buildHelp(entries, { isAdmin: false });
    expect(text(out.blocks)).toContain('Binds this channel to a client _(admins)_');
  });

  it('fits Slack limits with hundreds of long entries (discovered actions) and escapes them', () => {
    const many: HelpEntry[] = Array.from({ length: 400 }, (_, i) => ({
      name: `run_${i}`,
      usage: `run action_${i} <!channel>`,
      summary: 'd'.repeat(300),
      example: `run action_${i}`,
      group: 'Actions',
    }));
    const out = buildHelp(many, { isAdmin: false });
    expect(out.blocks.length).toBeLessThanOrEqual(50);
    for (const b of out.blocks) {
      if (b.type === 'section') expect(b.text?.text.length ?? 0).toBeLessThanOrEqual(3000);
    }
    expect(text(out.blocks)).not.toContain('<!channel>');
  });
});

describe('buildCommandHelp', () => {
  it('shows usage and example of one command', () => {
    const out = buildCommandHelp(entries[0] as HelpEntry);
    const all = text(out.blocks);
    expect(all).toContain('Usage: `/gateway use &lt;client_id&gt;`');
    expect(all).toContain('Example: `/gateway use c_acme`');
    expect(all).toContain('admins only');
  });
});

describe('buildErrorMessage', () => {
  it('shows the title, escaped detail, what to do and the usage', () => {
    const out = buildErrorMessage({
      title: 'The gateway refused the request.',
      detail: 'order must be one of created_at, id <!channel>',
      hint: 'Fix the value it names, e.g. `order=created_at`.',
      usage: 'get <resource> [order=field]',
    });
    const all = text(out.blocks);
    expect(out.text).toBe(':warning: The gateway refused the request.');
    expect(all).toContain(':warning: *The gateway refused the request.*');
    expect(all).toContain('id &lt;!channel&gt;');
    expect(all).toContain('*What to do:* Fix the value it names, e.g. `order=created_at`.');
    expect(all).toContain('Usage: `get &lt;resource&gt; [order=field]`');
  });

  it('never shows a stack trace', () => {
    const err = new Error('boom');
    const out = buildErrorMessage({ title: 'Something failed.', detail: err.stack });
    const all = text(out.blocks);
    expect(all).toContain('Error: boom');
    expect(all).not.toMatch(/\bat .*:\d+:\d+/);
  });

  it('omits the parts it was not given', () => {
    const out = buildErrorMessage({ title: 'No client bound.' });
    expect(out.blocks).toHaveLength(1);
  });
});
