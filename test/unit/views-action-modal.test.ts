import type { types } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { type ActionEntry, buildCatalogue } from '../../src/actions/catalogue.js';
import { validateActionFields } from '../../src/actions/parse-args.js';
import type { Discovery } from '../../src/gateway/types.js';
import {
  buildActionModal,
  buildLoadingModal,
  NEWEST_CHOICES,
  newestChoices,
  readActionModal,
} from '../../src/views/action-modal.js';

const discovery: Discovery = {
  resources: [],
  actions: [
    {
      action: 'generate_frequently_asked_questions_page',
      description: 'Drafts an FAQ page',
      required_fields: ['topic', 'audience'],
    },
  ],
};
const catalogue = buildCatalogue(discovery, { guardedActions: ['deploy_blog', 'send_prospect_email'] });
const entry = (action: string) => catalogue.byAction(action) as ActionEntry;

type Input = types.InputBlock;
const inputs = (view: types.ModalView) => view.blocks.filter((b): b is Input => b.type === 'input');

/** What Slack sends back in view.state.values for the given answers. */
function stateFor(view: types.ModalView, answers: Record<string, string>) {
  const values: Record<string, Record<string, unknown>> = {};
  for (const block of inputs(view)) {
    const el = block.element as { type: string; action_id: string };
    const answer = answers[block.block_id as string];
    values[block.block_id as string] = {
      [el.action_id]:
        el.type === 'static_select'
          ? { type: 'static_select', selected_option: answer ? { text: {}, value: answer } : null }
          : { type: 'plain_text_input', value: answer ?? null },
    };
  }
  return values as Parameters<typeof readActionModal>[1];
}

describe('action modal', () => {
  it('has one input per field, block_id and action_id named for the field, optional ones marked', () => {
    const view = buildActionModal(entry('generate_geo_article'), { privateMetadata: '{"c":"C1"}' });
    expect(view.callback_id).toBe('action_modal');
    expect(view.title.text).toBe('Geo article');
    expect(view.private_metadata).toBe('{"c":"C1"}');
    expect(
      inputs(view).map((b) => [b.block_id, (b.element as { action_id: string }).action_id, b.optional]),
    ).toEqual([
      ['keyword', 'keyword', false],
      ['city', 'city', false],
      ['state', 'state', false],
      ['category_id', 'category_id', true],
    ]);
  });

  it('round-trips every entry: build → Slack state → read → validate gives the typed fields', () => {
    const answers: Record<string, Record<string, string>> = {
      seo_audit: { url: 'https://a.example/' },
      run_grid_search: { keyword: 'plumber', lat: '30.26', lng: '-97.74', radius: '2.5' },
      generate_press_release: { headline: 'Moved', body_points: 'One\nTwo' },
      run_llm_visibility: { brand_name: 'Acme', prompt: 'best plumber?', competitors: 'Beta, Gamma' },
      send_prospect_email: { to: 'ed@blog.example', subject: 'Hi', html: '<p>Hi</p>' },
    };
    const expected: Record<string, Record<string, unknown>> = {
      seo_audit: { url: 'https://a.example/' },
      run_grid_search: { keyword: 'plumber', lat: 30.26, lng: -97.74, radius: 2.5 },
      generate_press_release: { headline: 'Moved', body_points: ['One', 'Two'] },
      run_llm_visibility: { brand_name: 'Acme', prompt: 'best plumber?', competitors: ['Beta', 'Gamma'] },
      send_prospect_email: { to: 'ed@blog.example', subject: 'Hi', html: '<p>Hi</p>' },
    };
    for (const [action, given] of Object.entries(answers)) {
      const e = entry(action);
      const view = buildActionModal(e, { privateMetadata: 'm' });
      const raw = readActionModal(e, stateFor(view, given));
      expect(validateActionFields(e, raw), action).toEqual({ ok: true, fields: expected[action] });
    }
  });

  it('gives errors keyed by block_id, so response_action: errors marks the right input', () => {
    const e = entry('run_grid_search');
    const view = buildActionModal(e, { privateMetadata: 'm' });
    const raw = readActionModal(e, stateFor(view, { keyword: 'plumber', lat: '91', lng: '' }));
    const result = validateActionFields(e, raw);
    expect(result).toEqual({
      ok: false,
      errors: { lat: 'Latitude must be a number from -90 to 90', lng: 'Longitude is required' },
    });
    if (!result.ok) {
      const blockIds = new Set(inputs(view).map((b) => b.block_id));
      for (const key of Object.keys(result.errors)) expect(blockIds.has(key)).toBe(true);
    }
  });

  it('fills the blog category select from loaded options, with the prefilled one chosen', () => {
    const options = {
      category_id: [
        { label: 'Plumbing tips', value: 'cat_01' },
        { label: 'News', value: 'cat_02' },
      ],
    };
    const view = buildActionModal(entry('generate_blog'), {
      privateMetadata: 'm',
      prefill: { keyword: 'best plumber', category_id: 'cat_02' },
      options,
    });
    const [keyword, category] = inputs(view);
    expect(keyword!.element).toMatchObject({ type: 'plain_text_input', initial_value: 'best plumber' });
    expect(category!.element).toMatchObject({
      type: 'static_select',
      options: [
        { text: { type: 'plain_text', text: 'Plumbing tips' }, value: 'cat_01' },
        { text: { type: 'plain_text', text: 'News' }, value: 'cat_02' },
      ],
      initial_option: { value: 'cat_02' },
    });
    const raw = readActionModal(
      entry('generate_blog'),
      stateFor(view, { keyword: 'best plumber', category_id: 'cat_01' }),
    );
    expect(raw).toEqual({ keyword: 'best plumber', category_id: 'cat_01' });
  });

  it('falls back to a text input when no category options could be loaded, and caps a long list at 100', () => {
    const plain = buildActionModal(entry('generate_blog'), { privateMetadata: 'm' });
    expect(inputs(plain)[1]!.element.type).toBe('plain_text_input');
    const many = Array.from({ length: 150 }, (_, i) => ({ label: `Category ${i}`, value: `cat_${i}` }));
    const capped = buildActionModal(entry('generate_blog'), {
      privateMetadata: 'm',
      options: { category_id: many },
    });
    expect((inputs(capped)[1]!.element as types.StaticSelect).options).toHaveLength(100);
  });

  it('offers a deploy the newest posts, bounded, saying how many and of how many it read', () => {
    const deploy = entry('deploy_blog');
    const postField = deploy.fields[0]!;
    const from = postField.optionsFrom!;
    const day = (i: number) =>
      `2026-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}T10:00:00Z`;
    const rows = Array.from({ length: 60 }, (_, i) => ({
      id: `blog_${i}`,
      post_title: i === 7 ? `A ${'very '.repeat(30)}long title` : `Post ${i}`,
      status: i % 2 ? 'draft' : 'published',
      created_at: day(i),
    }));
    const newest = [...rows].sort((a, b) => b.created_at.localeCompare(a.created_at));
    const some = newestChoices(from, postField, deploy.usage, { rows, total: 60, truncated: false });
    expect(some.options.map((o) => o.value)).toEqual(newest.slice(0, NEWEST_CHOICES).map((r) => r.id));
    expect(some.note).toMatch(
      /^The 25 newest of 60 posts, newest first\. Another: \/gateway deploy <post_id>\. /,
    );
    expect(some.options.every((o) => o.label.length <= 75)).toBe(true);
    expect(some.options.find((o) => o.value === 'blog_7')?.label).toMatch(
      /^A very .*… \(draft · 2026-08-08 · blog_7\)$/,
    );

    const cut = newestChoices(from, postField, deploy.usage, { rows, total: 5_000, truncated: true });
    expect(cut.note).toMatch(
      /^The 25 newest of the first 60 posts the gateway sent \(it has 5,000\), newest first\./,
    );
    const few = newestChoices(from, postField, deploy.usage, {
      rows: rows.slice(0, 3),
      total: 3,
      truncated: false,
    });
    expect(few.note).toMatch(/^All 3 posts, newest first\./);
    const none = newestChoices(from, postField, deploy.usage, { rows: [], total: 0, truncated: false });
    expect(none.options).toEqual([]);
    expect(none.note).toMatch(/^This client has no posts yet\./);

    // The form: a required select of those posts with the note as its hint; none loaded, a text input with it.
    const view = buildActionModal(deploy, {
      privateMetadata: 'm',
      options: { post_id: some.options },
      notes: { post_id: some.note },
    });
    expect(inputs(view)[0]).toMatchObject({ optional: false, hint: { text: some.note } });
    expect(inputs(view)[0]!.element.type).toBe('static_select');
    const fallback = inputs(buildActionModal(deploy, { privateMetadata: 'm' }))[0]!;
    expect(fallback.element.type).toBe('plain_text_input');
    expect(fallback.hint?.text).toContain('/gateway blogs');
  });

  it('uses multiline inputs for transcripts, HTML and lists', () => {
    const multiline = (action: string) =>
      inputs(buildActionModal(entry(action), { privateMetadata: 'm' }))
        .filter((b) => (b.element as types.PlainTextInput).multiline)
        .map((b) => b.block_id);
    expect(multiline('score_call')).toEqual(['transcript']);
    expect(multiline('send_prospect_email')).toEqual(['html']);
    expect(multiline('generate_press_release')).toEqual(['body_points']);
  });

  it('fits Slack limits for every entry: title ≤ 24, ≤ 100 blocks, a submit label', () => {
    for (const e of catalogue.entries()) {
      const view = buildActionModal(e, { privateMetadata: 'm' });
      expect(view.title.text.length, e.action).toBeLessThanOrEqual(24);
      expect(view.blocks.length).toBeLessThanOrEqual(100);
      expect(view.submit?.text).toBe(e.guarded ? 'Request approval' : 'Run');
    }
    const odd = entry('generate_frequently_asked_questions_page');
    expect(odd.label.length).toBeLessThanOrEqual(24);
    expect(inputs(buildActionModal(odd, { privateMetadata: 'm' })).map((b) => b.block_id)).toEqual([
      'topic',
      'audience',
    ]);
  });

  it('explains an action with no fields and says when an approver must accept it', () => {
    const refresh = buildActionModal(entry('fetch_backlinks'), { privateMetadata: 'm' });
    expect(JSON.stringify(refresh.blocks)).toMatch(/takes no fields/);
    const deploy = buildActionModal(entry('deploy_blog'), { privateMetadata: 'm' });
    expect(JSON.stringify(deploy.blocks)).toMatch(/approver must accept/);
  });

  it('refuses private metadata Slack would cut', () => {
    expect(() => buildActionModal(entry('seo_audit'), { privateMetadata: 'x'.repeat(3001) })).toThrow(
      /action_modal_metadata_too_long/,
    );
  });

  it('leaves empty and missing inputs out when reading the state', () => {
    expect(
      readActionModal(entry('generate_blog'), {
        keyword: { keyword: { type: 'plain_text_input', value: '  ' } },
      }),
    ).toEqual({});
    expect(readActionModal(entry('generate_blog'), {})).toEqual({});
  });

  it('builds a short loading view', () => {
    const view = buildLoadingModal('Business Profile post and then some');
    expect(view.title.text.length).toBeLessThanOrEqual(24);
    expect(JSON.stringify(view.blocks)).toMatch(/Loading/);
    expect(view.submit).toBeUndefined();
  });
});
