import { describe, expect, it } from 'vitest';
import { buildCatalogue } from '../../src/actions/catalogue.js';
import { normalize } from '../../src/actions/duplicate-guard.js';
import { buildDuplicatePrompt } from '../../src/views/duplicate-prompt.js';

const catalogue = buildCatalogue(undefined, { guardedActions: [] });
const blog = catalogue.byAction('generate_blog')!;

type Button = { action_id: string; value?: string; style?: string; text: { text: string } };
const buttonsOf = (blocks: unknown[]) =>
  (blocks as Array<{ type: string; elements?: Button[] }>).find((b) => b.type === 'actions')?.elements ?? [];

describe('duplicate prompt', () => {
  it('names the earlier record, links it, and offers Generate another / Cancel carrying the value', () => {
    const message = buildDuplicatePrompt({
      entry: blog,
      earlier: {
        id: 'blog_0042',
        post_title: 'Best plumber in Austin',
        url: 'https://acme.example/blog/best',
        created_at: '2025-06-01T10:00:00Z',
      },
      fields: { keyword: 'best plumber austin' },
      confirmValue: 'pending-123',
    });
    expect(message.text).toBe(
      'A blog article for “best plumber austin” already exists: *Best plumber in Austin* (<https://acme.example/blog/best|https://acme.example/blog/best>) (id blog_0042, created 2025-06-01). Generate another?',
    );
    expect(buttonsOf(message.blocks).map((b) => [b.action_id, b.text.text, b.value, b.style])).toEqual([
      ['duplicate_confirm', 'Generate another', 'pending-123', 'primary'],
      ['duplicate_cancel', 'Cancel', 'pending-123', undefined],
    ]);
  });

  it('escapes gateway strings and typed values so they cannot ping or forge a link', () => {
    const message = buildDuplicatePrompt({
      entry: blog,
      earlier: {
        id: '<!channel>',
        post_title: '<!here> & <https://evil.example|click>',
        url: 'javascript:alert(1)',
      },
      fields: { keyword: '<@U123>' },
      confirmValue: 'v',
    });
    const all = JSON.stringify(message);
    expect(all).not.toMatch(/<!channel>|<!here>|<@U123>|<https:\/\/evil/);
    expect(message.text).toContain('&lt;!here&gt; &amp; &lt;https://evil.example|click&gt;');
    expect(message.text).toContain('“&lt;@U123&gt;”');
  });

  it('lists every same-field value and falls back when the row has no title', () => {
    const geo = catalogue.byAction('generate_geo_article')!;
    const message = buildDuplicatePrompt({
      entry: geo,
      earlier: { id: 'geo_7' },
      fields: { keyword: 'drains', city: 'Austin', state: 'TX' },
      confirmValue: 'v',
    });
    expect(message.text).toBe(
      'A geo article for “drains”, “Austin”, “TX” already exists: *the earlier record* (id geo_7). Generate another?',
    );
    const outreach = catalogue.byAction('generate_outreach_email')!;
    expect(
      buildDuplicatePrompt({
        entry: outreach,
        earlier: { id: 'o1' },
        fields: { prospectUrl: 'https://p.example' },
        confirmValue: 'v',
      }).text,
    ).toMatch(/^An outreach email for “https:\/\/p.example”/);
  });

  it('refuses a button value longer than Slack allows instead of cutting it', () => {
    expect(() =>
      buildDuplicatePrompt({
        entry: blog,
        earlier: { id: 'b' },
        fields: { keyword: 'k' },
        confirmValue: 'x'.repeat(2001),
      }),
    ).toThrow(/duplicate_confirm_value_too_long/);
  });
});

describe('same-field comparison', () => {
  it('ignores case, surrounding and repeated whitespace, and treats absent as empty', () => {
    expect(normalize('  Best  Plumber\tAustin ')).toBe('best plumber austin');
    expect(normalize(undefined)).toBe('');
    expect(normalize(null)).toBe('');
    expect(normalize(30.5)).toBe('30.5');
    expect(normalize(['A', ' b '])).toBe('a\nb');
    expect(normalize('plumbers')).not.toBe(normalize('plumber'));
  });
});
