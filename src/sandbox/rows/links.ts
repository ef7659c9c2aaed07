import type { Row } from '../../gateway/types.js';
import { build, type GenContext, pad, slug } from './helpers.js';
import { LINK_DOMAINS, NASTY, SOURCE_TYPES } from './words.js';

/** The backlink family: links, anchors, most-linked pages, domain metrics, outreach and summaries. */

const ANCHORS = [
  'click here',
  'website',
  'read more',
  'local experts',
  'best in town',
  'this company',
] as const;

function sourceId(domainIndex: number): string {
  return `src_${pad(domainIndex + 1, 3)}`;
}

export function backlinkRows(ctx: GenContext): Row[] {
  const { rng, client } = ctx;
  const domains = sized(ctx);
  return build(ctx, client.size === 'large' ? 2_400 : 25, 720, (i, createdAt) => {
    const d = rng.int(0, domains - 1);
    const domain = `${d < LINK_DOMAINS.length ? '' : `site${d}.`}${LINK_DOMAINS[d % LINK_DOMAINS.length]}`;
    const service = rng.pick(client.services);
    return {
      id: `bl_${pad(i + 1)}`,
      source_url: `https://${domain}/${slug(service)}-${i}`,
      target_url: `${client.website}/${slug(service)}`,
      anchor: rng.chance(0.4) ? service : rng.pick(ANCHORS),
      domain_authority: rng.int(1, 95),
      source_type: rng.pick(SOURCE_TYPES),
      source_id: sourceId(d),
      external_pages: rng.int(1, 5_000),
      linking_domains: rng.int(1, 900),
      nofollow: rng.chance(0.25),
      first_seen: createdAt.slice(0, 10),
      created_at: createdAt,
      fetched_at: createdAt,
    };
  });
}

function sized(ctx: GenContext): number {
  return ctx.client.size === 'large' ? 400 : 10;
}

export function anchorTextRows(ctx: GenContext): Row[] {
  const { rng, client } = ctx;
  const anchors = [...ANCHORS, ...client.services, client.name];
  return build(ctx, anchors.length, 365, (i, createdAt) => ({
    id: `anchor_${pad(i + 1)}`,
    anchor: anchors[i],
    count: rng.int(1, client.size === 'large' ? 600 : 20),
    percentage: Math.round(rng.next() * 3_000) / 100,
    source_id: sourceId(rng.int(0, sized(ctx) - 1)),
    created_at: createdAt,
  }));
}

export function topLinkedPageRows(ctx: GenContext): Row[] {
  const { rng, client } = ctx;
  return build(ctx, client.services.length + 1, 365, (i, createdAt) => ({
    id: `page_${pad(i + 1)}`,
    url: i === 0 ? `${client.website}/` : `${client.website}/${slug(client.services[i - 1] ?? 'page')}`,
    linking_domains: rng.int(1, 900),
    external_pages: rng.int(1, 5_000),
    created_at: createdAt,
  }));
}

export function domainMetricRows(ctx: GenContext): Row[] {
  const { rng, client } = ctx;
  return build(ctx, 12, 360, (i, createdAt) => ({
    id: `dm_${pad(i + 1)}`,
    domain: new URL(client.website).hostname,
    domain_authority: rng.int(20, 60),
    page_authority: rng.int(20, 60),
    spam_score: rng.int(0, 12),
    fetched_at: createdAt,
    created_at: createdAt,
  }));
}

export function outreachRows(ctx: GenContext): Row[] {
  const { rng, client } = ctx;
  return build(ctx, client.size === 'large' ? 150 : 6, 365, (i, createdAt) => {
    const domain = rng.pick(LINK_DOMAINS);
    return {
      id: `outreach_${pad(i + 1)}`,
      prospectUrl: `https://${domain}/`,
      contact_email: `editor@${domain}`,
      subject: `Resource for your readers about ${rng.pick(client.services)}`,
      status: rng.pick(['prospect', 'drafted', 'contacted', 'replied', 'won', 'lost']),
      created_at: createdAt,
    };
  });
}

export function backlinkSummaryRows(ctx: GenContext): Row[] {
  const { rng, client } = ctx;
  return build(ctx, 6, 180, (i, createdAt) => ({
    id: `blsum_${pad(i + 1)}`,
    summary:
      client.size === 'small' && i === 0
        ? `Links from ${NASTY.reviewAuthor} look spammy`
        : `${rng.int(2, 40)} new referring domains, ${rng.int(0, 10)} lost; strongest from ${rng.pick(LINK_DOMAINS)}.`,
    status: rng.pick(['ready', 'stale']),
    source_id: sourceId(rng.int(0, sized(ctx) - 1)),
    created_at: createdAt,
  }));
}
