import { describe, expect, it } from 'vitest';
import { buildCatalogue } from '../../src/actions/catalogue.js';
import { buildActionResult, resultSummary } from '../../src/views/result-card.js';
import { actionTitle, slackDate } from '../../src/views/template.js';

const catalogue = buildCatalogue(
  {
    resources: [],
    actions: [{ action: 'generate_faq', description: 'FAQ', required_fields: ['topic'] }],
  } as never,
  { guardedActions: [] },
);
const entry = (action: string) => {
  const e = catalogue.byAction(action);
  if (!e) throw new Error(`no ${action}`);
  return e;
};
const all = (m: { text: string; blocks: unknown[] }) => `${m.text}\n${JSON.stringify(m.blocks)}`;

describe('result cards', () => {
  it('an audit: the summary for the status message, the score and issues in the thread', () => {
    const data = { id: 'audit_1', score: 72, issues_found: 1_409, url: 'https://acme.example/' };
    expect(resultSummary(entry('seo_audit'), data)).toBe('score 72/100 · 1,409 issues found');
    const m = buildActionResult(entry('seo_audit'), data, { fields: { url: 'https://acme.example/' } });
    expect(all(m)).toContain('Score: *72*/100\\nIssues found: *1,409*');
    expect(all(m)).toContain('Record `audit_1`');
    expect(all(m)).not.toContain('finished');
  });

  it('keyword ideas: a table of keyword, volume and KD, largest volume first, never JSON', () => {
    const ideas = [
      { keyword: 'a cost', search_volume: 40, difficulty: 3 },
      { keyword: 'a near me', search_volume: 4_017, difficulty: 87 },
    ];
    const m = buildActionResult(entry('generate_keywords'), { id: 'ideas_1', seed: 'a', ideas });
    const text = all(m);
    expect(text).toMatch(
      /2 ideas\*, by volume\\n```Keyword +Volume +KD\\na near me +4,017 +87\\na cost +40 +3```/,
    );
    expect(text).not.toContain('search_volume');
    expect(resultSummary(entry('generate_keywords'), { ideas })).toBe('2 keyword ideas');
  });

  it('a grid search: its place and radius, not Lat and Lng', () => {
    const fields = { keyword: 'plumber', lat: 30.2672, lng: -97.7431, radius: 5 };
    const m = buildActionResult(
      entry('run_grid_search'),
      { id: 'grid_1', ...fields, grid_size: 7, average_rank: 4.8 },
      { fields },
    );
    const text = all(m);
    expect(text).toContain('30.2672° N, 97.7431° W');
    expect(text).toContain('radius 5');
    expect(text).not.toMatch(/\bLat\b|\bLng\b/);
    expect(actionTitle(entry('run_grid_search'), fields)).toMatch(
      /^Local grid search for “plumber” around <https:\/\/www\.openstreetmap\.org\/\?mlat=30\.2672&amp;mlon=-97\.7431[^|]*\|30\.2672° N, 97\.7431° W> \(radius 5\)$/,
    );
  });

  it('times are Slack dates, ids are code; fields that only echo the request are left out', () => {
    const created = '2026-11-23T14:28:00.000Z';
    const m = buildActionResult(
      entry('generate_blog'),
      { id: 'blog_9', keyword: 'k', post_title: 'T', category_id: 'cat_01', created_at: created },
      { fields: { keyword: 'k' } },
    );
    const text = all(m);
    expect(text).toContain(slackDate(created));
    expect(text).toContain('`cat_01`');
    expect(text).not.toContain('Keyword');
    expect(text).not.toContain(created);
  });

  it('names the category and author a dataset names, the id beside; an id without a name shows as it is', () => {
    const record = { id: 'blog_9', post_title: 'T', category_id: 'cat_01', author_id: 'author_02' };
    const names = {
      category_id: { label: 'Category', names: { cat_01: 'Plumbing <tips>' } },
      author_id: { label: 'Author', names: { author_02: 'Ana Ruiz' } },
    };
    const text = all(buildActionResult(entry('generate_blog'), record, { names }));
    expect(text).toContain('*Category*\\nPlumbing &lt;tips&gt; (`cat_01`)');
    expect(text).toContain('*Author*\\nAna Ruiz (`author_02`)');
    expect(text).not.toContain('Author ID');
    const unnamed = all(
      buildActionResult(entry('generate_blog'), { ...record, author_id: 'author_99' }, { names }),
    );
    expect(unnamed).toContain('*Author ID*\\n`author_99`');
  });

  it('an action only discovery lists: an English title and its fields readably, escaped, nested data as words', () => {
    expect(actionTitle(entry('generate_faq'), { topic: 'water heaters' })).toBe('FAQ about “water heaters”');
    const m = buildActionResult(entry('generate_faq'), {
      id: 'faq_1',
      question: 'Why <!channel>?',
      answer: 'Call & ask',
      meta: { words: 120, lang: 'en' },
      rows: [
        { q: 'a', n: 1 },
        { q: 'b', n: 2 },
      ],
    });
    const text = all(m);
    expect(text).toContain('Why &lt;!channel&gt;?');
    expect(text).not.toContain('<!channel>');
    expect(text).toContain('Words: 120, Lang: en');
    expect(text).toMatch(/```Q +N\\na +1\\nb +2```/);
    expect(text).not.toMatch(/\{\\"/);
  });

  it('keeps within Slack limits for wide records', () => {
    const data = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`f${i}`, i]));
    const m = buildActionResult(entry('generate_faq'), data);
    for (const b of m.blocks as { fields?: unknown[] }[])
      expect(b.fields?.length ?? 0).toBeLessThanOrEqual(10);
  });

  it('offers the guarded follow-up under a drafted blog, keyed by the job', () => {
    const m = buildActionResult(
      entry('generate_blog'),
      { id: 'blog_1', post_title: 'T' },
      { jobKey: 'cmd:1' },
    );
    expect(all(m)).toMatch(/"value":"cmd:1"/);
  });
});
