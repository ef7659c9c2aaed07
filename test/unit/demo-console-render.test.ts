import { describe, expect, it } from 'vitest';
import { PRESENTATION } from '../../src/actions/result-specs.js';
import { answerFor, describeModal, modalFields, parseFill } from '../../src/local/console-modal.js';
import {
  indentUnder,
  mrkdwnToText,
  type RenderNames,
  renderBlocks,
  renderMessageBody,
} from '../../src/local/console-render.js';
import type { FakeView } from '../../src/local/fake-slack/index.js';
import { actions, button, context, divider, fields, header, section } from '../../src/views/blocks.js';
import { buildResourcePage } from '../../src/views/resource-page.js';
import { buildActionResult } from '../../src/views/result-card.js';

const names: RenderNames = {
  user: (id) => ({ UADMIN: 'alice', UMEMBER: 'bob' })[id] ?? id.toLowerCase(),
  channel: (id) => ({ CSEO: 'seo' })[id] ?? id.toLowerCase(),
};

describe('mrkdwn as terminal text', () => {
  it('turns links into label (url), a bare link into its url, and mentions into names', () => {
    expect(mrkdwnToText('see <https://a.example/x|the report> or <https://b.example>', names)).toBe(
      'see the report (https://a.example/x) or https://b.example',
    );
    expect(mrkdwnToText('by <@UADMIN> in <#CSEO> for <!here>', names)).toBe('by @alice in #seo for @here');
    expect(mrkdwnToText('<@UMEMBER|robert> and <#CX|marketing>', names)).toBe('@robert and #marketing');
    expect(mrkdwnToText('<mailto:ed@x.example|ed@x.example>', names)).toBe('ed@x.example');
    expect(mrkdwnToText('<https://a.example/plumber|a.example/plumber>', names)).toBe(
      'https://a.example/plumber',
    );
  });

  it('gives back escaped characters without letting them form links or mentions', () => {
    expect(mrkdwnToText('Tom &amp; Jerry &lt;b&gt; &lt;@UADMIN&gt;', names)).toBe(
      'Tom & Jerry <b> <@UADMIN>',
    );
    expect(mrkdwnToText('a link <https://x.example/?a=1&amp;b=2|Q&amp;A>', names)).toBe(
      'a link Q&A (https://x.example/?a=1&b=2)',
    );
    // An escaped entity stays the text it was: `&amp;lt;` is the four characters `&lt;`.
    expect(mrkdwnToText('&amp;lt;', names)).toBe('&lt;');
  });

  it('drops bold and italic markers at word edges but keeps snake_case and code', () => {
    expect(mrkdwnToText('Score: *91*/100 for *Acme Plumbing* and _soon_', names)).toBe(
      'Score: 91/100 for Acme Plumbing and soon',
    );
    expect(mrkdwnToText('the seo_audit_job and 2*3*4', names)).toBe('the seo_audit_job and 2*3*4');
    expect(mrkdwnToText('run `*not bold*` and `a &amp; b`', names)).toBe('run `*not bold*` and `a & b`');
  });

  it('drops bold markers around a code span, as Slack shows them', () => {
    expect(mrkdwnToText(':warning: *No client `acme`.* Did you mean `acme-plumbing`?', names)).toBe(
      '⚠️ No client `acme`. Did you mean `acme-plumbing`?',
    );
    expect(mrkdwnToText('`a *b` and `c* d`', names)).toBe('`a *b` and `c* d`');
  });

  it('shows known emoji as characters and leaves unknown shortcodes alone', () => {
    expect(mrkdwnToText(':white_check_mark: done :no_such_emoji:', names)).toBe('✅ done :no_such_emoji:');
    // The shortcodes the bot's messages use beside real emoji: shown as Slack shows them.
    expect(mrkdwnToText(':key: :bookmark: :rotating_light: :heavy_multiplication_x:', names)).toBe(
      '🔑 🔖 🚨 ✖️',
    );
  });
});

describe('Block Kit as lines', () => {
  it('renders headers, sections, fields, context, dividers and numbers the buttons', () => {
    const { lines, buttons } = renderBlocks(
      [
        header('Jobs'),
        section('*Audit* of <https://a.example/x|the site>'),
        fields('*Score:*\n91', '*Issues:*\n13'),
        context('Record `audit_1`', 'by <@UADMIN>'),
        divider(),
        actions(
          'nav',
          button({ text: 'Previous', actionId: 'page_prev', value: 'p' }),
          button({ text: 'Next', actionId: 'page_next', value: 'n' }),
        ),
        section('Retry?', button({ text: 'Retry anyway', actionId: 'retry', value: 'j1', style: 'danger' })),
      ],
      { names },
    );
    expect(lines).toEqual([
      '== Jobs ==',
      'Audit of the site (https://a.example/x)',
      'Score: 91',
      'Issues: 13',
      'Record `audit_1` · by @alice',
      '────────────────────',
      '[1] Previous  [2] Next',
      'Retry?',
      '[3] Retry anyway (!)',
    ]);
    expect(buttons.map((b) => [b.number, b.text, b.actionId, b.value])).toEqual([
      [1, 'Previous', 'page_prev', 'p'],
      [2, 'Next', 'page_next', 'n'],
      [3, 'Retry anyway', 'retry', 'j1'],
    ]);
  });

  it('numbers buttons from where the batch left off', () => {
    const { lines, buttons } = renderBlocks([actions('a', button({ text: 'Approve', actionId: 'ok' }))], {
      firstButton: 4,
    });
    expect(lines).toEqual(['[4] Approve']);
    expect(buttons[0]?.number).toBe(4);
  });

  it('renders a real resource page: summary, rows with escaped data, a numbered Next', () => {
    const page = buildResourcePage({
      resource: 'keywords',
      clientLabel: 'Acme & Sons',
      rows: [{ id: 'kw_1', keyword: 'plumber <austin>', position: 3 }],
      pagination: { total: 30, limit: 1, offset: 0, has_more: true },
      query: { resource: 'keywords', clientId: 'acme', limit: 1, offset: 0 },
    });
    const { lines, buttons } = renderMessageBody(page, { names });
    const text = lines.join('\n');
    expect(text).toContain('`keywords` for Acme & Sons · 1–1 of 30');
    expect(text).toContain('plumber <austin>');
    expect(text).not.toContain('&lt;');
    expect(buttons.map((b) => b.text)).toEqual(['Next']);
  });

  it('renders an audit result with its score and issues', () => {
    const result = buildActionResult(
      { action: 'seo_audit', label: 'SEO audit', ...PRESENTATION.seo_audit },
      { id: 'audit_1', score: 72, issues_found: 14, url: 'https://acme.example/' },
    );
    const text = renderMessageBody(result, { names }).lines.join('\n');
    expect(text).toContain('🔍 Score: 72/100');
    expect(text).toContain('Issues found: 14');
    expect(text).toContain('URL: https://acme.example/');
  });

  it('falls back to the message text when there are no blocks', () => {
    expect(renderMessageBody({ text: 'Hi <@UMEMBER>\n*there*' }, { names }).lines).toEqual([
      'Hi @bob',
      'there',
    ]);
  });

  it('indents continuation lines under a heading', () => {
    expect(indentUnder('gateway: ', ['one', 'two', ''], '  ')).toEqual(['gateway: one', '  two', '']);
  });
});

const view = (blocks: unknown[], errors?: Record<string, string>): FakeView => ({
  id: 'V1',
  hash: 'h1',
  user: 'UADMIN',
  view: { type: 'modal', title: { type: 'plain_text', text: 'Blog article' }, blocks },
  ...(errors ? { errors } : {}),
});

const blogBlocks = [
  context('Drafts a blog article'),
  {
    type: 'input',
    block_id: 'keyword',
    label: { type: 'plain_text', text: 'Keyword' },
    optional: false,
    element: {
      type: 'plain_text_input',
      action_id: 'keyword',
      placeholder: { type: 'plain_text', text: 'best plumber austin' },
    },
  },
  {
    type: 'input',
    block_id: 'category_id',
    label: { type: 'plain_text', text: 'Category' },
    optional: true,
    element: {
      type: 'static_select',
      action_id: 'category_id',
      options: [
        { text: { type: 'plain_text', text: 'Guides' }, value: 'cat_1' },
        { text: { type: 'plain_text', text: 'News' }, value: 'cat_2' },
      ],
    },
  },
];

describe('modals as prompts', () => {
  it('lists each field with required or optional and select options as numbered choices', () => {
    const lines = describeModal(view(blogBlocks), names).join('\n');
    expect(lines).toContain('modal “Blog article”');
    expect(lines).toContain('Drafts a blog article');
    expect(lines).toContain('Keyword (keyword; required; e.g. best plumber austin)');
    expect(lines).toContain('Category (category_id; optional)');
    expect(lines).toContain('1) Guides  2) News');
  });

  it('lists a long select one option a line, not as one line of thousands of characters', () => {
    const posts = Array.from({ length: 25 }, (_, i) => ({
      text: { type: 'plain_text', text: `A long enough post title number ${i + 1} (published · blog_${i})` },
      value: `blog_${i}`,
    }));
    const blocks = [
      {
        type: 'input',
        block_id: 'post_id',
        label: { type: 'plain_text', text: 'Post' },
        element: { type: 'static_select', action_id: 'post_id', options: posts },
      },
    ];
    const lines = describeModal(view(blocks), names);
    expect(lines).toContain('│     1) A long enough post title number 1 (published · blog_0)');
    expect(lines).toContain('│     25) A long enough post title number 25 (published · blog_24)');
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThan(120);
  });

  it('shows the errors the bot put on fields', () => {
    const v = view(blogBlocks, { keyword: 'Keyword is required' });
    expect(modalFields(v)[0]?.error).toBe('Keyword is required');
    expect(describeModal(v, names).join('\n')).toContain('✗ Keyword is required');
  });

  it('takes a choice number, value or label for a select, refuses other answers, and text as it is otherwise', () => {
    const [keyword, category] = modalFields(view(blogBlocks));
    if (!keyword || !category) throw new Error('expected two fields');
    expect(answerFor(category, '2')).toBe('cat_2');
    expect(answerFor(category, 'news')).toBe('cat_2');
    expect(answerFor(category, 'cat_1')).toBe('cat_1');
    expect(answerFor(category, '9')).toBeUndefined();
    expect(answerFor(category, 'friendly')).toBeUndefined();
    expect(answerFor(keyword, ' 2 ')).toBe('2');
  });

  it('reads fill lines as name=value pairs with quotes, and refuses bare words', () => {
    expect(parseFill(' keyword="best plumber austin" city=Austin')).toEqual({
      keyword: 'best plumber austin',
      city: 'Austin',
    });
    expect(() => parseFill('keyword best')).toThrow(/name=value/);
    expect(() => parseFill('keyword="unclosed')).toThrow();
  });
});
