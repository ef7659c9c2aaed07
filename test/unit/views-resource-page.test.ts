import type { types } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import {
  buildResourcePage,
  DEFAULT_PAGE_ROWS,
  decodePageQuery,
  encodePageQuery,
  type PageQuery,
  type ResourcePageInput,
} from '../../src/views/resource-page.js';
import { formatRow } from '../../src/views/row-format.js';

const query: PageQuery = { resource: 'keywords', clientId: 'c_acme', limit: 20, offset: 0 };

function keywordRows(n: number, from = 0) {
  return Array.from({ length: n }, (_, i) => ({
    keyword: `best plumber ${from + i}`,
    position: (i % 30) + 1,
    url: `https://acme.example/plumbing/${from + i}`,
    search_volume: 1200 + i,
    difficulty: 45,
    created_at: '2024-05-01',
    notes: 'x'.repeat(500),
  }));
}

function page(over: Partial<ResourcePageInput> = {}): ResourcePageInput {
  return {
    resource: 'keywords',
    clientLabel: 'Acme Plumbing',
    rows: keywordRows(20),
    pagination: { total: 4812, limit: 20, offset: 0, has_more: true },
    query,
    ...over,
  };
}

const allText = (blocks: types.KnownBlock[]) => JSON.stringify(blocks);
const sections = (blocks: types.KnownBlock[]) =>
  blocks.filter((b): b is types.SectionBlock => b.type === 'section').map((b) => b.text?.text ?? '');
const buttons = (blocks: types.KnownBlock[]) =>
  blocks.flatMap((b) => (b.type === 'actions' ? (b.elements as types.Button[]) : []));

describe('buildResourcePage', () => {
  it('summarises the range with an en dash and thousands separators', () => {
    const out = buildResourcePage(page());
    expect(sections(out.blocks)[0]).toBe('`keywords` for *Acme Plumbing* · 1–20 of 4,812');
    expect(out.text).toBe('keywords for Acme Plumbing: 1–20 of 4,812');
  });

  it('renders a 20-row page in a handful of blocks with every row numbered', () => {
    const out = buildResourcePage(page());
    expect(out.blocks.length).toBeLessThanOrEqual(12);
    const text = allText(out.blocks);
    expect(text).toContain('1. *best plumber 0* · #1 · vol 1,200 · KD 45');
    expect(text).toContain('20. *best plumber 19*');
  });

  it('shows a 1,000-row page honestly within 50 blocks and 3,000 characters a section', () => {
    const out = buildResourcePage(
      page({ rows: keywordRows(1000), pagination: { total: 4812, limit: 1000, offset: 0, has_more: true } }),
    );
    expect(out.blocks.length).toBeLessThanOrEqual(50);
    for (const s of sections(out.blocks)) expect(s.length).toBeLessThanOrEqual(3000);
    const text = allText(out.blocks);
    expect(text).toContain('Showing 20 of the 1,000 rows on this page');
    expect(text).toContain('limit=20 offset=20');
    expect(text).not.toContain('21. ');
    const next = buttons(out.blocks).find((b) => b.action_id === 'page_next');
    expect(decodePageQuery(next?.value ?? '')).toMatchObject({ offset: 20, limit: 20 });
  });

  it('offers Next only when there is more and Previous only past the first page', () => {
    const first = buttons(buildResourcePage(page()).blocks).map((b) => b.action_id);
    expect(first).toEqual(['page_next']);

    const middle = buildResourcePage(
      page({
        pagination: { total: 4812, limit: 20, offset: 40, has_more: true },
        query: { ...query, offset: 40 },
      }),
    );
    const [prev, next] = buttons(middle.blocks);
    expect([prev?.action_id, next?.action_id]).toEqual(['page_prev', 'page_next']);
    expect(decodePageQuery(prev?.value ?? '')?.offset).toBe(20);
    expect(decodePageQuery(next?.value ?? '')?.offset).toBe(60);

    const last = buildResourcePage(
      page({
        rows: keywordRows(12),
        pagination: { total: 4812, limit: 20, offset: 4800, has_more: false },
        query: { ...query, offset: 4800 },
      }),
    );
    expect(buttons(last.blocks).map((b) => b.action_id)).toEqual(['page_prev']);

    const only = buildResourcePage(
      page({ rows: keywordRows(3), pagination: { total: 3, limit: 20, offset: 0, has_more: false } }),
    );
    expect(buttons(only.blocks)).toEqual([]);
  });

  it('says No rows with a hint about the filter when a filter matches nothing', () => {
    const out = buildResourcePage(
      page({
        rows: [],
        pagination: { total: 0, limit: 20, offset: 0, has_more: false },
        query: { ...query, filter: { field: 'status', value: 'archived' } },
      }),
    );
    const text = allText(out.blocks);
    expect(text).toContain('No rows');
    expect(text).toContain('status=archived');
    expect(text).toContain('check the filter');
    expect(buttons(out.blocks)).toEqual([]);
  });

  it('shows the filter and order in a context line', () => {
    const out = buildResourcePage(
      page({
        query: {
          ...query,
          filter: { field: 'status', value: 'active' },
          order: 'created_at',
          direction: 'asc',
        },
      }),
    );
    expect(allText(out.blocks)).toContain('Filter: `status=active` · Order: `created_at` asc');
  });

  it('escapes every gateway string, the fallback text included', () => {
    const out = buildResourcePage(
      page({
        clientLabel: 'Acme <!channel>',
        rows: [
          {
            keyword: '<!channel> & <@U1>',
            anchor: '<https://evil.example|click>',
            url: 'javascript:alert(1)',
          },
        ],
        pagination: { total: 1, limit: 20, offset: 0, has_more: false },
      }),
    );
    const text = allText(out.blocks) + out.text;
    expect(text).not.toContain('<!channel>');
    expect(text).not.toContain('<@U1>');
    expect(text).not.toContain('<https://evil');
    expect(text).not.toContain('<javascript');
    expect(out.text).toBe('keywords for Acme &lt;!channel&gt;: 1–1 of 1');
  });

  it('renders rows of unknown shape sensibly', () => {
    const out = buildResourcePage(
      page({
        resource: 'mystery_things',
        rows: [
          {
            id: 7,
            ok: true,
            gone: null,
            tags: ['a', 'b'],
            nested: { deep: { er: [1, 2, 3] } },
            essay: 'word '.repeat(2000),
          },
        ],
        pagination: { total: 1, limit: 20, offset: 0, has_more: false },
        query: { ...query, resource: 'mystery_things' },
      }),
    );
    const row = sections(out.blocks)[1] ?? '';
    expect(row).toContain('1. *7*');
    expect(row).toContain('ok: yes');
    expect(row).toContain('gone: —');
    expect(row).toContain('tags: a, b');
    expect(row).toContain('nested: {"deep":{"er":[1,2,3]}}');
    expect(row.length).toBeLessThan(1000);
  });
});

describe('formatRow', () => {
  it('says a keyword is paused on its own line, and says nothing of an active one', () => {
    const row = {
      keyword: 'plumber austin',
      position: 12,
      search_volume: 90,
      url: 'https://acmeplumbing.example/',
    };
    const paused = formatRow('keywords', { ...row, status: 'paused' }, 12);
    expect(paused.split('\n')).toHaveLength(1);
    expect(paused).toMatch(/^12\. \*plumber austin\* · #12 · vol 90 · .* · paused$/);
    expect(formatRow('keywords', { ...row, status: 'active' }, 13)).not.toMatch(/active|status/);
  });

  it('shows a review rating as stars with the text quoted', () => {
    const text = formatRow('reviews', {
      author: 'Ana',
      rating: 4,
      sentiment: 'positive',
      text: 'Great work',
    });
    expect(text).toBe('*Ana* · ★★★★☆ 4 · positive\n>Great work');
  });

  it('links a backlink source only when it is http(s)', () => {
    expect(formatRow('backlinks', { source_url: 'https://blog.example/post', domain_authority: 61 })).toBe(
      '*<https://blog.example/post|blog.example/post>* · DA 61',
    );
    expect(formatRow('backlinks', { source_url: 'ftp://x' })).toBe('*ftp://x*');
  });

  it('shows a blog post once as published or draft, its category and author by name, and every field', () => {
    const post = {
      id: 'blog_000240',
      post_title: 'What a plumber costs',
      keyword: 'plumber austin',
      status: 'published',
      published: true,
      category_id: 'cat_05',
      author_id: 'author_02',
      url: `https://acmeplumbing.example/blog/${'what-a-plumber-costs-'.repeat(3)}`,
      word_count: 1066,
      created_at: '2026-11-24T08:50:00.000Z',
      updated_at: '2026-11-24T08:50:00.000Z',
    };
    const names = {
      category_id: { label: 'Category', names: { cat_05: 'Pricing & <costs>' } },
      author_id: { label: 'Author', names: { author_02: 'Owen *Fischer*' } },
    };
    const text = formatRow('blogs', post, 1, names);
    expect(text).toMatch(
      /^1\. \*What a plumber costs\* · published · Pricing &amp; &lt;costs&gt; \(`cat_05`\) · by Owen \*Fischer\* \(`author_02`\) · 1,066 words · created /,
    );
    expect(text).not.toContain('published yes');
    expect(text).not.toContain('more fields');
    expect(text).toContain('id: blog_000240 · keyword: plumber austin');
    // Without names the ids show as ids; a flag that disagrees with the status is said.
    const bare = formatRow('blogs', { ...post, status: 'scheduled', published: false });
    expect(bare).toContain('scheduled · not published · category `cat_05` · by `author_02`');
    // A resource without its own layout names the category in the rest of the row.
    const geo = formatRow('geo_articles', { title: 'Drains in Austin', category_id: 'cat_05' }, 2, names);
    expect(geo).toBe('2. *Drains in Austin*\ncategory: Pricing &amp; &lt;costs&gt; (`cat_05`)');
  });
});

describe('page query value', () => {
  it('round-trips a full query', () => {
    const q: PageQuery = {
      resource: 'seo_tasks',
      clientId: 'c_1',
      filter: { field: 'status', value: 'pending "now"' },
      order: 'created_at',
      direction: 'asc',
      limit: DEFAULT_PAGE_ROWS,
      offset: 40,
    };
    const value = encodePageQuery(q);
    expect(value.length).toBeLessThan(200);
    expect(decodePageQuery(value)).toEqual(q);
    // A text match (`keyword~water`) goes with the page, so Next keeps it.
    const matched: PageQuery = {
      ...q,
      resource: 'keywords',
      match: { field: 'keyword', text: 'water "heater"' },
    };
    expect(decodePageQuery(encodePageQuery(matched))).toEqual(matched);
  });

  it('rejects tampered or foreign values', () => {
    const good = JSON.parse(encodePageQuery(query));
    expect(decodePageQuery('not json')).toBeUndefined();
    expect(decodePageQuery(JSON.stringify({ ...good, o: -5 }))).toBeUndefined();
    expect(decodePageQuery(JSON.stringify({ ...good, l: 5000 }))).toBeUndefined();
    expect(decodePageQuery(JSON.stringify({ ...good, r: 'keywords&client_id=other' }))).toBeUndefined();
    expect(decodePageQuery(JSON.stringify({ ...good, admin: true }))).toBeUndefined();
    expect(decodePageQuery(JSON.stringify({ ...good, d: 'sideways' }))).toBeUndefined();
    expect(decodePageQuery(JSON.stringify({ ...good, m: ['keyword&x=1', 'a'] }))).toBeUndefined();
    expect(decodePageQuery(JSON.stringify({ ...good, m: ['keyword', ''] }))).toBeUndefined();
    expect(decodePageQuery('[1,2]')).toBeUndefined();
    expect(decodePageQuery(JSON.stringify(good))).toEqual(query);
  });
});
