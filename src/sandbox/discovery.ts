import { SPEC_ACTIONS, SPEC_RESOURCES, type SpecAction } from '../gateway/spec.js';

/**
 * What the sandbox serves beyond the spec's tables. The real discovery call is open-ended
 * (docs/gateway-api.md §4.1, §2.1), so the sandbox lists one extra resource and one extra action to prove the
 * bot follows discovery, not its own list.
 */

const EXTRA_ACTIONS: readonly SpecAction[] = [
  {
    action: 'generate_faq',
    description: 'Drafts FAQ entries for a topic',
    required: ['topic'],
    optional: ['count'],
    recordResource: 'faqs',
  },
];

export const SANDBOX_RESOURCES: readonly string[] = [...SPEC_RESOURCES, 'faqs'];
export const SANDBOX_ACTIONS: readonly SpecAction[] = [...SPEC_ACTIONS, ...EXTRA_ACTIONS];

/**
 * Where actions with no readable resource keep their records: not readable over GET (the real gateway
 * offers no place to look), but visible through `records()` so tests can prove an effect happened once.
 */
const INTERNAL_RESOURCES: Readonly<Record<string, string>> = {
  generate_keywords: 'keyword_ideas',
  generate_blog_image: 'blog_images',
  deploy_blog: 'deployments',
  index_url: 'index_submissions',
  send_prospect_email: 'sent_emails',
};

/** Id prefix of records an action creates. */
export const ID_PREFIXES: Readonly<Record<string, string>> = {
  seo_audit: 'audit',
  optimize_page: 'task',
  generate_keywords: 'ideas',
  generate_topical_map: 'map',
  generate_blog: 'blog',
  generate_blog_image: 'img',
  generate_geo_article: 'geo',
  generate_press_release: 'pr',
  generate_gbp_post: 'gbppost',
  deploy_blog: 'deploy',
  index_url: 'idx',
  fetch_backlinks: 'bl',
  generate_outreach_email: 'outreach',
  send_prospect_email: 'email',
  run_grid_search: 'grid',
  run_llm_visibility: 'llm',
  score_call: 'score',
  generate_faq: 'faq',
};

export function findAction(name: string): SpecAction | undefined {
  return SANDBOX_ACTIONS.find((action) => action.action === name);
}

/** The resource an action's records live in: the readable one, else its internal list. */
export function storeResourceOf(action: string): string | undefined {
  return findAction(action)?.recordResource ?? INTERNAL_RESOURCES[action];
}

/** docs/gateway-api.md §4.1 discovery body. */
export function discoveryBody(): {
  resources: string[];
  actions: { action: string; description: string; required_fields: string[] }[];
} {
  return {
    resources: [...SANDBOX_RESOURCES],
    actions: SANDBOX_ACTIONS.map((a) => ({
      action: a.action,
      description: a.description,
      required_fields: [...a.required],
    })),
  };
}
