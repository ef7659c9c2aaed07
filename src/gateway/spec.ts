/**
 * The facts of the gateway specification (`docs/gateway-api.md`) that both the client and the built-in
 * sandbox rely on. The discovery call stays the live source of truth for resources and actions; these lists
 * are what the spec itself names, used for validation before a call and for the sandbox's answers.
 */

/** docs/gateway-api.md §2.1: the readable resources the spec names. Discovery may list more. */
export const SPEC_RESOURCES = [
  'clients',
  'keywords',
  'seo_tasks',
  'seo_reports',
  'blogs',
  'blog_categories',
  'blog_authors',
  'geo_articles',
  'topical_maps',
  'press_releases',
  'backlinks',
  'anchor_texts',
  'top_linked_pages',
  'domain_metrics',
  'backlink_outreach',
  'backlink_summaries',
  'citations',
  'gbp_profiles',
  'gbp_posts',
  'reviews',
  'locations',
  'grid_searches',
  'competitors',
  'llm_reports',
  'ai_summaries',
  'ai_training',
  'call_tracking_calls',
  'callprovider_calls',
  'call_scores',
  'call_transcriptions',
  'integrations',
] as const;

/** docs/gateway-api.md §4.2: allowed values of `order`. */
export const ORDER_FIELDS = [
  'created_at',
  'updated_at',
  'id',
  'fetched_at',
  'tracked_at',
  'external_pages',
  'linking_domains',
  'appearances',
  'scored_at',
] as const;
export type OrderField = (typeof ORDER_FIELDS)[number];

/** docs/gateway-api.md §2.3: allowed values of `filter_field`. */
export const FILTER_FIELDS = [
  'id',
  'status',
  'source_type',
  'source_id',
  'category_id',
  'published',
  'lead_grade',
  'quality_grade',
  'sentiment',
] as const;
export type FilterField = (typeof FILTER_FIELDS)[number];

export const DIRECTIONS = ['asc', 'desc'] as const;
export type Direction = (typeof DIRECTIONS)[number];

/** docs/gateway-api.md §8 */
export const LIMIT_DEFAULT = 100;
export const LIMIT_MAX = 1000;

/** The 400 message for a bad `order`, word for word what the sandbox answers and the client checks before a call. */
export function badOrderMessage(value: string): string {
  return `Invalid order "${value}". Allowed values: ${ORDER_FIELDS.join(', ')}`;
}

/** The 400 message for a bad `filter_field`. */
export function badFilterMessage(value: string): string {
  return `Invalid filter_field "${value}". Allowed values: ${FILTER_FIELDS.join(', ')}`;
}

export function badDirectionMessage(value: string): string {
  return `Invalid direction "${value}". Allowed values: ${DIRECTIONS.join(', ')}`;
}

export function badLimitMessage(value: string): string {
  return `Invalid limit "${value}". Use a whole number from 1 to ${LIMIT_MAX}`;
}

export function badOffsetMessage(value: string): string {
  return `Invalid offset "${value}". Use a whole number from 0 up`;
}

export interface SpecAction {
  action: string;
  description: string;
  required: readonly string[];
  optional: readonly string[];
  /**
   * The resource where the record the action creates can be read back (for reconciliation after an unknown
   * outcome and for the duplicate guard). Undefined: the spec gives no place to look, so an unknown outcome
   * must be settled by a person.
   */
  recordResource?: string;
  /** docs/gateway-api.md §4.3 rule 2: re-running creates no duplicate records. */
  safeToRepeat?: boolean;
}

/** docs/gateway-api.md §4.3: the actions the spec's table names. Discovery may list more. */
export const SPEC_ACTIONS: readonly SpecAction[] = [
  {
    action: 'seo_audit',
    description: 'Runs a site audit',
    required: ['url'],
    optional: [],
    recordResource: 'seo_reports',
    safeToRepeat: true,
  },
  {
    action: 'optimize_page',
    description: 'Generates on-page optimisations for a URL',
    required: ['url'],
    optional: ['keyword'],
    recordResource: 'seo_tasks',
  },
  {
    action: 'generate_keywords',
    description: 'Generates keyword ideas with live metrics',
    required: [],
    optional: ['seed', 'location'],
  },
  {
    action: 'generate_topical_map',
    description: 'Builds a topical map',
    required: ['topic'],
    optional: ['depth'],
    recordResource: 'topical_maps',
  },
  {
    action: 'generate_blog',
    description: 'Drafts a blog article',
    required: ['keyword'],
    optional: ['category_id', 'tone'],
    recordResource: 'blogs',
  },
  {
    action: 'generate_blog_image',
    description: 'Generates a featured image',
    required: ['title'],
    optional: ['style'],
  },
  {
    action: 'generate_geo_article',
    description: 'Drafts a geo-targeted article',
    required: ['keyword', 'city', 'state'],
    optional: ['category_id'],
    recordResource: 'geo_articles',
  },
  {
    action: 'generate_press_release',
    description: 'Drafts a press release',
    required: ['headline'],
    optional: ['body_points'],
    recordResource: 'press_releases',
  },
  {
    action: 'generate_gbp_post',
    description: 'Drafts a Business Profile post',
    required: ['topic'],
    optional: ['cta'],
    recordResource: 'gbp_posts',
  },
  { action: 'deploy_blog', description: 'Deploys the blog widget', required: [], optional: ['post_id'] },
  { action: 'index_url', description: 'Submits a URL for indexing', required: ['url'], optional: [] },
  {
    action: 'fetch_backlinks',
    description: 'Refreshes the backlink profile',
    required: [],
    optional: [],
    recordResource: 'backlinks',
    safeToRepeat: true,
  },
  {
    action: 'generate_outreach_email',
    description: 'Drafts an outreach email',
    required: ['prospectUrl'],
    optional: ['tone'],
    recordResource: 'backlink_outreach',
  },
  {
    action: 'send_prospect_email',
    description: 'Sends a prospect email',
    required: ['to', 'subject', 'html'],
    optional: [],
  },
  {
    action: 'run_grid_search',
    description: 'Runs a local grid search',
    required: ['keyword', 'lat', 'lng'],
    optional: ['radius'],
    recordResource: 'grid_searches',
  },
  {
    action: 'run_llm_visibility',
    description: 'Runs an answer-engine visibility check',
    required: ['prompt', 'brand_name'],
    optional: ['competitors'],
    recordResource: 'llm_reports',
  },
  {
    action: 'score_call',
    description: 'Scores a call transcript',
    required: ['transcript'],
    optional: ['call_id'],
    recordResource: 'call_scores',
  },
];

/** The sample keys of the built-in sandbox. Not secrets: they only open the sandbox. */
export const SANDBOX_KEYS = {
  full: 'sandbox-key',
  readonly: 'sandbox-readonly',
  unlinked: 'sandbox-unlinked',
  revoked: 'sandbox-revoked',
} as const;
