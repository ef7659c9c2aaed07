import { type ActionField, field } from './fields.js';

/**
 * The actions of docs/gateway-api.md §4.3 as the bot knows them: command words, fields with the checks a
 * person expects, how the command line maps onto fields, when a modal helps, and which fields make two
 * requests "the same" (docs/gateway-api.md §4.4 rule 1). Where the record lands and whether a repeat is
 * harmless come from SPEC_ACTIONS.
 *
 * `sameFields` is left empty for actions whose repeats are the point or are harmless: audits and backlink
 * refreshes (docs/gateway-api.md §4.3 rule 2), grid searches and visibility checks (a measurement over time),
 * indexing and deploys (no new content; deploys wait for an approver anyway).
 */

export type ModalPolicy = 'never' | 'when-missing' | 'always-offer';

export interface KnownAction {
  action: string;
  command: string;
  /** Short: it is the modal's title (Slack: at most 24 characters). */
  label: string;
  fields: ActionField[];
  positional: string[];
  /** The last positional field takes every remaining word (`llm <brand_name> <prompt…>`). */
  restPositional?: boolean;
  modal: ModalPolicy;
  /** Optional fields worth a form: when absent from the command line, the modal opens prefilled. */
  offerFields?: string[];
  sameFields: string[];
  /** Overrides the usage line generated from the fields. */
  usage?: string;
  example: string;
}

const categoryFrom = { resource: 'blog_categories', valueField: 'id', labelField: 'name' } as const;
const tone = field.text('tone', { label: 'Tone', placeholder: 'friendly, expert, playful…', max: 100 });

export const KNOWN_ACTIONS: readonly KnownAction[] = [
  {
    action: 'seo_audit',
    command: 'audit',
    label: 'SEO audit',
    fields: [field.url('url', { label: 'Page URL', required: true, placeholder: 'https://example.com/' })],
    positional: ['url'],
    modal: 'never',
    sameFields: [],
    example: '/gateway audit https://acme-plumbing.example/services',
  },
  {
    action: 'optimize_page',
    command: 'optimize',
    label: 'Page optimisation',
    fields: [
      field.url('url', { label: 'Page URL', required: true, placeholder: 'https://example.com/page' }),
      field.text('keyword', { label: 'Target keyword', max: 200 }),
    ],
    positional: ['url'],
    modal: 'never',
    sameFields: ['url', 'keyword'],
    example: '/gateway optimize https://acme-plumbing.example/water-heaters keyword="water heater repair"',
  },
  {
    action: 'generate_keywords',
    command: 'ideas',
    label: 'Keyword ideas',
    fields: [
      field.text('seed', { label: 'Seed keyword', max: 200 }),
      field.text('location', { label: 'Location', placeholder: 'Austin, TX', max: 200 }),
    ],
    positional: [],
    modal: 'never',
    sameFields: ['seed', 'location'],
    example: '/gateway ideas seed="emergency plumber" location="Austin, TX"',
  },
  {
    action: 'generate_topical_map',
    command: 'map',
    label: 'Topical map',
    fields: [
      field.text('topic', { label: 'Topic', required: true, max: 200 }),
      field.positive('depth', {
        label: 'Depth',
        integer: true,
        max: 10,
        hint: 'Levels of subtopics, 1 to 10.',
      }),
    ],
    positional: ['topic'],
    restPositional: true,
    modal: 'never',
    sameFields: ['topic'],
    example: '/gateway map "water heaters" depth=3',
  },
  {
    action: 'generate_blog',
    command: 'blog',
    label: 'Blog article',
    fields: [
      field.text('keyword', {
        label: 'Keyword',
        required: true,
        placeholder: 'best plumber austin',
        max: 200,
      }),
      field.select('category_id', { label: 'Category', from: categoryFrom }),
      tone,
    ],
    positional: ['keyword'],
    restPositional: true,
    modal: 'always-offer',
    sameFields: ['keyword'],
    usage: '/gateway blog [keyword] [category_id=…] [tone=…]',
    example: '/gateway blog "best plumber austin" tone=friendly',
  },
  {
    action: 'generate_blog_image',
    command: 'image',
    label: 'Blog image',
    fields: [
      field.text('title', { label: 'Image title', required: true, max: 300 }),
      field.text('style', { label: 'Style', placeholder: 'photo, watercolor, flat illustration…', max: 200 }),
    ],
    positional: ['title'],
    restPositional: true,
    modal: 'never',
    sameFields: ['title'],
    example: '/gateway image "How to choose a water heater" style=watercolor',
  },
  {
    action: 'generate_geo_article',
    command: 'geo',
    label: 'Geo article',
    fields: [
      field.text('keyword', { label: 'Keyword', required: true, max: 200 }),
      field.text('city', { label: 'City', required: true, max: 100 }),
      field.text('state', { label: 'State', required: true, max: 100 }),
      field.select('category_id', { label: 'Category', from: categoryFrom }),
    ],
    positional: [],
    modal: 'always-offer',
    sameFields: ['keyword', 'city', 'state'],
    example: '/gateway geo keyword="drain cleaning" city=Austin state=TX',
  },
  {
    action: 'generate_press_release',
    command: 'press',
    label: 'Press release',
    fields: [
      field.text('headline', { label: 'Headline', required: true, max: 300 }),
      field.list('body_points', {
        label: 'Body points',
        hint: 'One point per line (on the command line, separate them with ;).',
      }),
    ],
    positional: ['headline'],
    restPositional: true,
    modal: 'always-offer',
    offerFields: ['body_points'],
    sameFields: ['headline'],
    example: '/gateway press "Acme Plumbing opens a second office" body_points="Opens May 1; Ten new jobs"',
  },
  {
    action: 'generate_gbp_post',
    command: 'gbp',
    label: 'Business Profile post',
    fields: [
      field.text('topic', { label: 'Topic', required: true, max: 300 }),
      field.text('cta', { label: 'Call to action', placeholder: 'Call now', max: 100 }),
    ],
    positional: ['topic'],
    restPositional: true,
    modal: 'never',
    sameFields: ['topic'],
    example: '/gateway gbp "Spring drain cleaning special" cta="Call now"',
  },
  {
    action: 'deploy_blog',
    command: 'deploy',
    label: 'Blog deploy',
    fields: [
      {
        ...field.select('post_id', {
          label: 'Post',
          required: true,
          placeholder: 'Choose a post',
          from: {
            resource: 'blogs',
            valueField: 'id',
            labelField: 'post_title',
            newest: 'created_at',
            detail: ['status', 'created_at'],
          },
        }),
        checkedOnAsk: true,
        // docs/gateway-api.md §4.3 names post_id optional but does not say what a deploy without one publishes.
        requiredBecause:
          'the gateway’s document does not say what `deploy_blog` does without a `post_id`, so the bot never sends one',
        find: '`/gateway blogs` lists the posts with their ids (`/gateway blogs published=false` the drafts).',
      },
    ],
    positional: ['post_id'],
    modal: 'when-missing',
    sameFields: [],
    example: '/gateway deploy blog_000001',
  },
  {
    action: 'index_url',
    command: 'index',
    label: 'URL indexing',
    fields: [field.url('url', { label: 'Page URL', required: true })],
    positional: ['url'],
    modal: 'never',
    sameFields: [],
    example: '/gateway index https://acme-plumbing.example/blog/water-heaters',
  },
  {
    action: 'fetch_backlinks',
    command: 'backlinks refresh',
    label: 'Backlink refresh',
    fields: [],
    positional: [],
    modal: 'never',
    sameFields: [],
    example: '/gateway backlinks refresh',
  },
  {
    action: 'generate_outreach_email',
    command: 'outreach',
    label: 'Outreach email',
    fields: [field.url('prospectUrl', { label: 'Prospect URL', required: true }), tone],
    positional: ['prospectUrl'],
    modal: 'never',
    sameFields: ['prospectUrl'],
    example: '/gateway outreach https://austin-home-blog.example/resources tone=warm',
  },
  {
    action: 'send_prospect_email',
    command: 'email',
    label: 'Prospect email',
    fields: [
      field.email('to', { label: 'To', required: true, placeholder: 'editor@example.com' }),
      field.text('subject', { label: 'Subject', required: true, max: 200 }),
      field.html('html', { label: 'Body (HTML)', required: true, placeholder: '<p>Hello…</p>' }),
    ],
    positional: [],
    modal: 'always-offer',
    sameFields: ['to', 'subject'],
    example:
      '/gateway email to=editor@austin-home-blog.example subject="A resource for your readers" html="<p>Hi!</p>"',
  },
  {
    action: 'run_grid_search',
    command: 'grid',
    label: 'Local grid search',
    fields: [
      field.text('keyword', { label: 'Keyword', required: true, max: 200 }),
      field.latitude('lat', { label: 'Latitude', required: true, placeholder: '30.2672' }),
      field.longitude('lng', { label: 'Longitude', required: true, placeholder: '-97.7431' }),
      field.positive('radius', { label: 'Radius', hint: 'Distance from the centre to the grid edge.' }),
    ],
    positional: ['keyword', 'lat', 'lng'],
    modal: 'never',
    sameFields: [],
    example: '/gateway grid "plumber near me" 30.2672 -97.7431 radius=5',
  },
  {
    action: 'run_llm_visibility',
    command: 'llm',
    label: 'LLM visibility check',
    fields: [
      field.text('brand_name', { label: 'Brand name', required: true, max: 200 }),
      field.multiline('prompt', { label: 'Prompt', required: true, max: 2000 }),
      field.list('competitors', { label: 'Competitors', commas: true, hint: 'Separate names with commas.' }),
    ],
    positional: ['brand_name', 'prompt'],
    restPositional: true,
    modal: 'always-offer',
    sameFields: [],
    example:
      '/gateway llm "Acme Plumbing" who is the best plumber in Austin competitors="Roto-Rooter, Mr. Rooter"',
  },
  {
    action: 'score_call',
    command: 'score-call',
    label: 'Call scoring',
    fields: [
      field.multiline('transcript', { label: 'Transcript', required: true }),
      {
        ...field.text('call_id', { label: 'Call id', placeholder: 'call_000001', max: 150 }),
        refersTo: { resources: ['call_tracking_calls', 'callprovider_calls'], field: 'id' },
      },
    ],
    positional: ['call_id'],
    modal: 'always-offer',
    sameFields: ['call_id'],
    example: '/gateway score-call call_000001 transcript="Hi, I need a quote for a new water heater."',
  },
];
