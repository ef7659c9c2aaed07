import type { FilterField, OrderField } from './spec.js';

/**
 * The "filters and ordering named for it" of each resource (docs/gateway-api.md §2.1): what the bot offers as
 * hints for one resource and what it reads in by default, instead of the same global lists everywhere. The
 * gateway accepts every order and filter (docs/gateway-api.md §4.2, §2.3) on any resource; these are the ones
 * that mean something for each.
 */
export interface ResourceFields {
  filters: readonly FilterField[];
  orders: readonly OrderField[];
}

const RESOURCE_FIELDS: Readonly<Record<string, ResourceFields>> = {
  clients: { filters: ['status', 'id'], orders: [] },
  keywords: { filters: ['status'], orders: ['tracked_at'] },
  seo_tasks: { filters: ['status', 'category_id'], orders: ['created_at'] },
  seo_reports: { filters: [], orders: ['created_at'] },
  blogs: { filters: ['status', 'published', 'category_id'], orders: [] },
  blog_categories: { filters: ['id'], orders: [] },
  blog_authors: { filters: ['id'], orders: [] },
  geo_articles: { filters: ['status'], orders: [] },
  topical_maps: { filters: [], orders: ['created_at'] },
  press_releases: { filters: ['status'], orders: [] },
  backlinks: { filters: ['source_type', 'source_id'], orders: ['external_pages', 'linking_domains'] },
  anchor_texts: { filters: ['source_id'], orders: [] },
  top_linked_pages: { filters: [], orders: ['linking_domains'] },
  domain_metrics: { filters: [], orders: ['fetched_at'] },
  backlink_outreach: { filters: ['status'], orders: [] },
  backlink_summaries: { filters: ['status'], orders: [] },
  citations: { filters: ['status'], orders: [] },
  gbp_profiles: { filters: ['status'], orders: [] },
  gbp_posts: { filters: ['status'], orders: [] },
  reviews: { filters: ['sentiment'], orders: ['created_at'] },
  locations: { filters: ['id'], orders: [] },
  grid_searches: { filters: [], orders: ['tracked_at'] },
  competitors: { filters: [], orders: ['appearances'] },
  llm_reports: { filters: [], orders: ['scored_at'] },
  ai_summaries: { filters: ['source_id'], orders: [] },
  ai_training: { filters: ['source_id'], orders: [] },
  call_tracking_calls: { filters: [], orders: ['created_at'] },
  callprovider_calls: { filters: [], orders: ['created_at'] },
  call_scores: { filters: ['lead_grade', 'quality_grade'], orders: [] },
  call_transcriptions: { filters: ['lead_grade', 'quality_grade'], orders: [] },
  integrations: { filters: ['status'], orders: [] },
};

/** Orders that say when a row happened, as opposed to counts (`linking_domains`, `appearances`). */
const TIME_ORDERS: ReadonlySet<string> = new Set([
  'created_at',
  'updated_at',
  'fetched_at',
  'tracked_at',
  'scored_at',
]);
/** Resources that are rankings by nature: their named count is their natural order, biggest first. */
const RANKED_BY_COUNT: ReadonlySet<string> = new Set(['top_linked_pages', 'competitors']);

/**
 * What docs/gateway-api.md §2.1 names for `resource`; undefined for a resource only the discovery call lists.
 */
export function resourceFields(resource: string): ResourceFields | undefined {
  return RESOURCE_FIELDS[resource];
}

/**
 * The order a resource reads in when none is asked for (always descending: newest first): the time field
 * docs/gateway-api.md §2.1 names for it, the count of a ranking (`competitors` by appearances), else
 * `created_at`. The client roster has none: it reads in the gateway's own order.
 */
export function defaultOrder(resource: string): OrderField | undefined {
  if (resource === 'clients') return undefined;
  const named = RESOURCE_FIELDS[resource]?.orders ?? [];
  const time = named.find((o) => TIME_ORDERS.has(o));
  if (time) return time;
  if (RANKED_BY_COUNT.has(resource) && named[0]) return named[0];
  return 'created_at';
}

/** A field that holds the id of a row of a small naming resource (the blog's category), and how to call it. */
export interface NamedReference {
  resource: string;
  label: string;
}

/**
 * Ids that a dataset names (docs/gateway-api.md §2.1: `blog_categories`, `blog_authors` are the blog's taxonomy
 * and authors, filterable by `id`), per resource whose rows carry them: shown by name, not `cat_01`.
 */
const NAMED_REFERENCES: Readonly<Record<string, Readonly<Record<string, NamedReference>>>> = {
  blogs: {
    category_id: { resource: 'blog_categories', label: 'Category' },
    author_id: { resource: 'blog_authors', label: 'Author' },
  },
  geo_articles: { category_id: { resource: 'blog_categories', label: 'Category' } },
};

export function namedReferences(resource: string | undefined): Readonly<Record<string, NamedReference>> {
  return (resource && NAMED_REFERENCES[resource]) || {};
}
