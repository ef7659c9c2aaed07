import type { Row } from '../../gateway/types.js';
import type { SampleClient } from '../clients.js';
import { createRng, hashSeed } from '../prng.js';
import {
  aiSummaryRows,
  aiTrainingRows,
  callProviderRows,
  callScoreRows,
  callTrackingRows,
  callTranscriptionRows,
  integrationRows,
  llmReportRows,
} from './calls-ai.js';
import {
  blogAuthorRows,
  blogCategoryRows,
  blogRows,
  faqRows,
  geoArticleRows,
  pressReleaseRows,
  seoReportRows,
  seoTaskRows,
  topicalMapRows,
} from './content.js';
import type { RowGenerator } from './helpers.js';
import { keywordRows } from './keywords.js';
import {
  anchorTextRows,
  backlinkRows,
  backlinkSummaryRows,
  domainMetricRows,
  outreachRows,
  topLinkedPageRows,
} from './links.js';
import {
  citationRows,
  competitorRows,
  gbpPostRows,
  gbpProfileRows,
  gridSearchRows,
  locationRows,
  reviewRows,
} from './local.js';

/** Resource → generator of a client's sample rows. `clients` is not here: it is not per client. */
const GENERATORS: Readonly<Record<string, RowGenerator>> = {
  keywords: keywordRows,
  seo_tasks: seoTaskRows,
  seo_reports: seoReportRows,
  blogs: blogRows,
  blog_categories: blogCategoryRows,
  blog_authors: blogAuthorRows,
  geo_articles: geoArticleRows,
  topical_maps: topicalMapRows,
  press_releases: pressReleaseRows,
  backlinks: backlinkRows,
  anchor_texts: anchorTextRows,
  top_linked_pages: topLinkedPageRows,
  domain_metrics: domainMetricRows,
  backlink_outreach: outreachRows,
  backlink_summaries: backlinkSummaryRows,
  citations: citationRows,
  gbp_profiles: gbpProfileRows,
  gbp_posts: gbpPostRows,
  reviews: reviewRows,
  locations: locationRows,
  grid_searches: gridSearchRows,
  competitors: competitorRows,
  llm_reports: llmReportRows,
  ai_summaries: aiSummaryRows,
  ai_training: aiTrainingRows,
  call_tracking_calls: callTrackingRows,
  callprovider_calls: callProviderRows,
  call_scores: callScoreRows,
  call_transcriptions: callTranscriptionRows,
  integrations: integrationRows,
  faqs: faqRows,
};

export interface SampleSettings {
  seed: number;
  anchorMs: number;
  keywordRows: number;
}

/**
 * A client's sample rows of one resource, from a stream seeded by (seed, client, resource): the same rows
 * whatever was read before. Resources with no generator (internal lists) start empty.
 */
export function sampleRows(settings: SampleSettings, client: SampleClient, resource: string): Row[] {
  const generate = GENERATORS[resource];
  if (!generate) return [];
  const rng = createRng(hashSeed(settings.seed, client.id, resource));
  return generate({ rng, client, anchorMs: settings.anchorMs, keywordRows: settings.keywordRows });
}
