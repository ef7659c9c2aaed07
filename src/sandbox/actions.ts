import type { Row } from '../gateway/types.js';
import type { SampleClient } from './clients.js';
import { ID_PREFIXES, storeResourceOf } from './discovery.js';
import { createRng, hashSeed, type Rng } from './prng.js';
import { slug, titleCase } from './rows/helpers.js';
import type { SandboxStore } from './sample-store.js';

/**
 * What each action does to the data. Generation actions always create a new record (docs/gateway-api.md §4.3
 * rule 1: no deduplication); `seo_audit` upserts by url and `fetch_backlinks` only refreshes (rule 2).
 */

interface ActionRun {
  store: SandboxStore;
  client: SampleClient;
  action: string;
  /**
   * The request's fields other than action and client_id, echoed into the record (docs/gateway-api.md §4.3
   * rule 4).
   */
  fields: Record<string, unknown>;
  now: string;
  /** Seeded from the request, so the same audit of the same url scores the same. */
  rng: Rng;
}

export type ActionOutcome =
  | { ok: true; data: Record<string, unknown> }
  | { ok: false; statusCode: number; error: string };

const text = (value: unknown, fallback = ''): string =>
  typeof value === 'string' ? value : value === undefined || value === null ? fallback : String(value);

/** Creates the action's record in its resource and counts it. */
function create(run: ActionRun, specific: Record<string, unknown>): ActionOutcome {
  const resource = storeResourceOf(run.action) ?? `${run.action}_records`;
  const id = run.store.nextId(ID_PREFIXES[run.action] ?? 'rec');
  // id first for readers, and assigned last so a request field named id cannot replace it.
  const record: Row = { id };
  Object.assign(record, run.fields, specific, { id, created_at: run.now, updated_at: run.now });
  run.store.append(run.client.id, resource, record);
  run.store.countCreated(run.client.id, run.action);
  return { ok: true, data: { ...record } };
}

function seoAudit(run: ActionRun): ActionOutcome {
  const url = text(run.fields.url);
  const score = run.rng.int(40, 99);
  const issues = run.rng.int(0, 45);
  const existing = run.store.rows(run.client.id, 'seo_reports').find((row) => row.url === url);
  if (!existing) {
    const created = create(run, { url, score, issues_found: issues, status: 'completed' });
    if (!created.ok) return created;
    return { ok: true, data: { id: created.data.id, score, issues_found: issues, url } };
  }
  Object.assign(existing, { score, issues_found: issues, status: 'completed', updated_at: run.now });
  run.store.changed(run.client.id, 'seo_reports');
  return { ok: true, data: { id: existing.id, score, issues_found: issues, url } };
}

function deployBlog(run: ActionRun): ActionOutcome {
  const blogs = run.store.rows(run.client.id, 'blogs');
  const postId = run.fields.post_id === undefined ? undefined : text(run.fields.post_id);
  const post = postId
    ? blogs.find((row) => row.id === postId)
    : blogs.findLast((row) => row.status === 'draft');
  if (postId && !post) {
    return { ok: false, statusCode: 404, error: `Blog post "${postId}" was not found for this client` };
  }
  const deployedAt = run.now;
  if (post) {
    Object.assign(post, {
      status: 'published',
      published: true,
      url: `${run.client.website}/blog/${slug(text(post.post_title, 'post'))}`,
      updated_at: deployedAt,
    });
    run.store.changed(run.client.id, 'blogs');
  }
  const created = create(run, { post_id: post?.id ?? null, deployed_at: deployedAt, status: 'deployed' });
  return created.ok
    ? { ok: true, data: { ...created.data, post_id: post?.id ?? null, deployed_at: deployedAt } }
    : created;
}

function fetchBacklinks(run: ActionRun): ActionOutcome {
  const rows = run.store.rows(run.client.id, 'backlinks');
  const domains = new Set(rows.map((row) => row.source_id));
  return {
    ok: true,
    data: {
      total_backlinks: rows.length,
      referring_domains: domains.size,
      new_backlinks: 0,
      lost_backlinks: 0,
      fetched_at: run.now,
    },
  };
}

function generateBlog(run: ActionRun): ActionOutcome {
  const keyword = text(run.fields.keyword);
  return create(run, {
    post_title: `${titleCase(keyword)}: a complete guide`,
    keyword,
    status: 'draft',
    published: false,
    category_id: run.fields.category_id ?? 'cat_01',
    author_id: 'author_01',
    word_count: typeof run.fields.word_count === 'number' ? run.fields.word_count : 1_200,
    url: null,
  });
}

const GRADES = ['A', 'B', 'C', 'D'] as const;

const BUILDERS: Readonly<Record<string, (run: ActionRun) => ActionOutcome>> = {
  seo_audit: seoAudit,
  deploy_blog: deployBlog,
  fetch_backlinks: fetchBacklinks,
  generate_blog: generateBlog,
  optimize_page: (run) =>
    create(run, {
      title: `Optimise ${text(run.fields.url)}${run.fields.keyword ? ` for "${text(run.fields.keyword)}"` : ''}`,
      priority: 'high',
      status: 'pending',
      category_id: 'cat_on_page',
      recommendations: ['Rewrite the title tag', 'Add the keyword to the H1', 'Shorten the meta description'],
    }),
  generate_keywords: (run) => {
    const seed = text(run.fields.seed, run.client.services[0]);
    const ideas = ['near me', 'cost', 'best', 'emergency', 'reviews'].map((m) => ({
      keyword: `${seed} ${m}`,
      search_volume: run.rng.int(10, 5_000),
      difficulty: run.rng.int(1, 100),
    }));
    return create(run, { ideas });
  },
  generate_topical_map: (run) => {
    const topic = text(run.fields.topic);
    return create(run, {
      depth: run.fields.depth ?? 3,
      pillar: `The complete guide to ${topic}`,
      clusters: [`${topic} cost`, `${topic} near me`, `signs you need ${topic}`],
    });
  },
  generate_blog_image: (run) =>
    create(run, { image_url: `https://images.example/${slug(text(run.fields.title))}.png`, status: 'ready' }),
  generate_geo_article: (run) =>
    create(run, {
      title: `${titleCase(text(run.fields.keyword))} in ${text(run.fields.city)}, ${text(run.fields.state)}`,
      status: 'draft',
    }),
  generate_press_release: (run) => create(run, { status: 'draft' }),
  generate_gbp_post: (run) =>
    create(run, {
      summary: `${titleCase(text(run.fields.topic))} from ${run.client.name}.`,
      status: 'draft',
    }),
  index_url: (run) => create(run, { status: 'submitted' }),
  generate_outreach_email: (run) =>
    create(run, {
      subject: `A resource for your readers from ${run.client.name}`,
      body: `Hi, I enjoyed ${text(run.fields.prospectUrl)} and thought our guide could help your readers.`,
      status: 'drafted',
    }),
  send_prospect_email: (run) => create(run, { status: 'sent', sent_at: run.now }),
  run_grid_search: (run) =>
    create(run, {
      grid_size: 7,
      average_rank: Math.round((1 + run.rng.next() * 15) * 10) / 10,
      tracked_at: run.now,
    }),
  run_llm_visibility: (run) =>
    create(run, {
      engine: 'chatgpt',
      visibility_score: run.rng.int(0, 100),
      mentions: run.rng.int(0, 12),
      scored_at: run.now,
    }),
  score_call: (run) =>
    create(run, {
      lead_grade: run.rng.pick(GRADES),
      quality_grade: run.rng.pick(GRADES),
      score: run.rng.int(10, 100),
    }),
  generate_faq: (run) => {
    const topic = text(run.fields.topic);
    return create(run, {
      question: `What should I know about ${topic}?`,
      answer: `${run.client.name} explains ${topic} in plain words.`,
      status: 'draft',
    });
  },
};

export function runAction(
  store: SandboxStore,
  seed: number,
  client: SampleClient,
  action: string,
  fields: Record<string, unknown>,
): ActionOutcome {
  const rng = createRng(hashSeed(seed, client.id, action, JSON.stringify(fields)));
  const run: ActionRun = { store, client, action, fields, now: new Date().toISOString(), rng };
  return (BUILDERS[action] ?? ((r: ActionRun) => create(r, {})))(run);
}
