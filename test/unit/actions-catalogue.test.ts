import { describe, expect, it } from 'vitest';
import { type ActionEntry, buildCatalogue } from '../../src/actions/catalogue.js';
import { parseActionArgs } from '../../src/actions/parse-args.js';
import { actionHelpEntries } from '../../src/commands/action-help.js';
import { tokenize } from '../../src/commands/tokenizer.js';
import { SPEC_ACTIONS } from '../../src/gateway/spec.js';
import type { Discovery } from '../../src/gateway/types.js';

const GUARDED = ['deploy_blog', 'send_prospect_email'];

/** Spec actions plus the sandbox's extra one, as a discovery call would list them. */
const discovery: Discovery = {
  resources: ['blogs', 'faqs'],
  actions: [
    ...SPEC_ACTIONS.map((a) => ({
      action: a.action,
      description: a.description,
      required_fields: [...a.required],
    })),
    { action: 'generate_faq', description: 'Drafts FAQ entries for a topic', required_fields: ['topic'] },
  ],
};

/** `/gateway backlinks refresh x=1` → the tokens after the entry's command words. */
function argsOf(entry: ActionEntry, typed: string) {
  const prefix = `/gateway ${entry.command}`;
  expect(typed.startsWith(prefix)).toBe(true);
  return tokenize(typed.slice(prefix.length));
}

const EXPECTED: Record<string, Record<string, unknown>> = {
  seo_audit: { url: 'https://acme-plumbing.example/services' },
  optimize_page: { url: 'https://acme-plumbing.example/water-heaters', keyword: 'water heater repair' },
  generate_keywords: { seed: 'emergency plumber', location: 'Austin, TX' },
  generate_topical_map: { topic: 'water heaters', depth: 3 },
  generate_blog: { keyword: 'best plumber austin', tone: 'friendly' },
  generate_blog_image: { title: 'How to choose a water heater', style: 'watercolor' },
  generate_geo_article: { keyword: 'drain cleaning', city: 'Austin', state: 'TX' },
  generate_press_release: {
    headline: 'Acme Plumbing opens a second office',
    body_points: ['Opens May 1', 'Ten new jobs'],
  },
  generate_gbp_post: { topic: 'Spring drain cleaning special', cta: 'Call now' },
  deploy_blog: { post_id: 'blog_000001' },
  index_url: { url: 'https://acme-plumbing.example/blog/water-heaters' },
  fetch_backlinks: {},
  generate_outreach_email: { prospectUrl: 'https://austin-home-blog.example/resources', tone: 'warm' },
  send_prospect_email: {
    to: 'editor@austin-home-blog.example',
    subject: 'A resource for your readers',
    html: '<p>Hi!</p>',
  },
  run_grid_search: { keyword: 'plumber near me', lat: 30.2672, lng: -97.7431, radius: 5 },
  run_llm_visibility: {
    brand_name: 'Acme Plumbing',
    prompt: 'who is the best plumber in Austin',
    competitors: ['Roto-Rooter', 'Mr. Rooter'],
  },
  score_call: { call_id: 'call_000001', transcript: 'Hi, I need a quote for a new water heater.' },
};

describe('action catalogue', () => {
  const catalogue = buildCatalogue(discovery, { guardedActions: GUARDED });

  it('has one entry per spec action, each reachable by its command and by its action name', () => {
    for (const spec of SPEC_ACTIONS) {
      const entry = catalogue.byAction(spec.action);
      expect(entry, spec.action).toBeDefined();
      expect(catalogue.byCommand(entry!.command)).toBe(entry);
      expect(catalogue.byCommand(`run ${spec.action}`)).toBe(entry);
      expect(entry!.recordResource).toBe(spec.recordResource);
      expect(entry!.safeToRepeat).toBe(spec.safeToRepeat ?? false);
    }
    expect(catalogue.byCommand('backlinks refresh')?.action).toBe('fetch_backlinks');
    expect(catalogue.byCommand('  Score-Call ')?.action).toBe('score_call');
    expect(catalogue.byCommand('backlinks')).toBeUndefined();
    expect(catalogue.byCommand('nonsense')).toBeUndefined();
  });

  it.each(Object.entries(EXPECTED))(
    'parses the example of %s into the exact POST fields',
    (action, fields) => {
      const entry = catalogue.byAction(action)!;
      const result = parseActionArgs(entry, argsOf(entry, entry.example));
      expect(result).toEqual({ kind: 'ready', fields });
    },
  );

  it('covers all seventeen spec actions in the example table', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual(SPEC_ACTIONS.map((a) => a.action).sort());
  });

  it('marks the configured actions as guarded and no others', () => {
    const guarded = catalogue
      .entries()
      .filter((e) => e.guarded)
      .map((e) => e.action);
    expect(guarded.sort()).toEqual([...GUARDED].sort());
  });

  it('always guards deploys and emails, whatever the configuration names', () => {
    const guardedOf = (names: string[]) =>
      buildCatalogue(discovery, { guardedActions: names })
        .entries()
        .filter((e) => e.guarded)
        .map((e) => e.action)
        .sort();
    expect(guardedOf([])).toEqual([...GUARDED].sort());
    expect(guardedOf(['GENERATE_BLOG'])).toEqual([...GUARDED, 'generate_blog'].sort());
  });

  it('names the same-request fields of generation actions and none for safe repeats', () => {
    expect(catalogue.byAction('generate_blog')!.sameFields).toEqual(['keyword']);
    expect(catalogue.byAction('generate_outreach_email')!.sameFields).toEqual(['prospectUrl']);
    expect(catalogue.byAction('generate_press_release')!.sameFields).toEqual(['headline']);
    expect(catalogue.byAction('seo_audit')!.sameFields).toEqual([]);
    expect(catalogue.byAction('fetch_backlinks')!.sameFields).toEqual([]);
  });

  it('keeps every label short enough for a modal title and gives every entry a usage line', () => {
    for (const e of catalogue.entries()) {
      expect(e.label.length, e.action).toBeLessThanOrEqual(24);
      expect(e.usage.startsWith(`/gateway ${e.command}`)).toBe(true);
    }
    expect(catalogue.byAction('seo_audit')!.usage).toBe('/gateway audit <url>');
    expect(catalogue.byAction('run_llm_visibility')!.usage).toBe(
      '/gateway llm <brand_name> <prompt…> [competitors=…]',
    );
    expect(catalogue.byAction('run_grid_search')!.usage).toBe(
      '/gateway grid <keyword> <lat> <lng> [radius=…]',
    );
  });
});

describe('actions only the discovery call knows', () => {
  const catalogue = buildCatalogue(discovery, { guardedActions: GUARDED });

  it('builds an entry from required_fields that runs as `run <action> field=value`', () => {
    const faq = catalogue.byCommand('run generate_faq')!;
    expect(faq).toMatchObject({
      action: 'generate_faq',
      discovered: true,
      available: true,
      guarded: false,
      modal: 'always-offer',
      usage: '/gateway run generate_faq topic=…',
      sameFields: ['topic'],
    });
    expect(faq.recordResource).toBeUndefined();
    expect(faq.fields.map((f) => [f.name, f.kind, f.required])).toEqual([['topic', 'text', true]]);
    expect(parseActionArgs(faq, tokenize('topic="water heater care"'))).toEqual({
      kind: 'ready',
      fields: { topic: 'water heater care' },
    });
  });

  it('opens a form for a discovered action whose required field is missing', () => {
    const faq = catalogue.byAction('generate_faq')!;
    expect(parseActionArgs(faq, [])).toEqual({ kind: 'needs-modal', prefill: {}, reason: 'missing' });
  });

  it('refuses a field the discovery call did not list, naming the ones it did', () => {
    const faq = catalogue.byAction('generate_faq')!;
    const result = parseActionArgs(faq, tokenize('topic=x count=5'));
    expect(result.kind).toBe('invalid');
    if (result.kind === 'invalid') expect(result.errors.count).toMatch(/Unknown field "count".*takes topic/);
  });

  it('guards a discovered action when the configuration names it', () => {
    const guarded = buildCatalogue(discovery, { guardedActions: ['Generate_FAQ'] });
    expect(guarded.byAction('generate_faq')!.guarded).toBe(true);
  });

  it('adds a required field that discovery lists for a known action', () => {
    const changed: Discovery = {
      resources: [],
      actions: [
        { action: 'generate_blog', description: 'Drafts a blog', required_fields: ['keyword', 'audience'] },
      ],
    };
    const blog = buildCatalogue(changed, { guardedActions: [] }).byAction('generate_blog')!;
    expect(blog.fields.find((f) => f.name === 'audience')).toMatchObject({ required: true, kind: 'text' });
    expect(blog.description).toBe('Drafts a blog');
    const result = parseActionArgs(blog, tokenize('"best plumber" audience=homeowners'));
    expect(result).toEqual({ kind: 'ready', fields: { keyword: 'best plumber', audience: 'homeowners' } });
  });

  it('marks known actions the discovery call omits as unavailable, and all available without discovery', () => {
    const partial: Discovery = {
      resources: [],
      actions: [{ action: 'seo_audit', description: '', required_fields: ['url'] }],
    };
    const some = buildCatalogue(partial, { guardedActions: [] });
    expect(some.byAction('seo_audit')!.available).toBe(true);
    expect(some.byAction('generate_blog')!.available).toBe(false);
    const offline = buildCatalogue(undefined, { guardedActions: [] });
    expect(offline.entries()).toHaveLength(17);
    expect(offline.entries().every((e) => e.available)).toBe(true);
  });

  it('ignores discovered action names that could not be typed as a command', () => {
    const odd: Discovery = {
      resources: [],
      actions: [{ action: 'bad name; rm', description: '', required_fields: [] }],
    };
    expect(buildCatalogue(odd, { guardedActions: [] }).entries()).toHaveLength(17);
  });
});

describe('action help entries', () => {
  it('lists every available action with usage (no /gateway prefix), summary and example', () => {
    const catalogue = buildCatalogue(discovery, { guardedActions: GUARDED });
    const help = actionHelpEntries(catalogue);
    expect(help).toHaveLength(18);
    expect(help.every((h) => h.group === 'Actions')).toBe(true);
    expect(help.find((h) => h.name === 'audit')).toEqual({
      name: 'audit',
      usage: 'audit <url>',
      summary: 'Runs a site audit',
      example: '/gateway audit https://acme-plumbing.example/services',
      group: 'Actions',
    });
    expect(help.find((h) => h.name === 'email')!.summary).toMatch(/needs approval/);
    expect(help.find((h) => h.name === 'run generate_faq')!.usage).toBe('run generate_faq topic=…');
  });

  it('marks actions only discovery lists as admins-only until they are allowed', () => {
    const catalogue = buildCatalogue(discovery, { guardedActions: GUARDED });
    expect(actionHelpEntries(catalogue).find((h) => h.name === 'run generate_faq')?.adminOnly).toBe(true);
    expect(actionHelpEntries(catalogue).find((h) => h.name === 'audit')?.adminOnly).toBeUndefined();
    const allowed = actionHelpEntries(catalogue, ['generate_faq']);
    expect(allowed.find((h) => h.name === 'run generate_faq')?.adminOnly).toBeUndefined();
  });

  it('leaves out actions this gateway does not offer', () => {
    const partial: Discovery = {
      resources: [],
      actions: [{ action: 'seo_audit', description: 'Audit', required_fields: ['url'] }],
    };
    expect(actionHelpEntries(buildCatalogue(partial, { guardedActions: [] })).map((h) => h.name)).toEqual([
      'audit',
    ]);
  });
});
