import type { Row } from '../../gateway/types.js';
import { build, type GenContext, pad, personName, sized, slug, titleCase } from './helpers.js';
import { BLOG_CATEGORIES, NASTY } from './words.js';

/** Content resources: tasks, audits, blogs and their taxonomy, articles, maps, releases, FAQs. */

const TASK_CATEGORIES = ['cat_technical', 'cat_on_page', 'cat_content', 'cat_local', 'cat_links'] as const;
const TASK_VERBS = ['Fix', 'Add', 'Improve', 'Rewrite', 'Compress', 'Audit', 'Link to'] as const;
const TASK_OBJECTS = [
  'meta description',
  'title tag',
  'H1 heading',
  'image alt text',
  'internal links',
  'page speed',
  'schema markup',
  'broken links',
  'canonical tag',
  'mobile layout',
] as const;

function nastyFirst(ctx: GenContext, i: number): boolean {
  return ctx.client.size === 'small' && i === 0;
}

export function seoTaskRows(ctx: GenContext): Row[] {
  const { rng, client } = ctx;
  return build(ctx, sized(ctx, 400, 15), 365, (i, createdAt) => ({
    id: `task_${pad(i + 1)}`,
    title: nastyFirst(ctx, i)
      ? NASTY.taskTitle
      : `${rng.pick(TASK_VERBS)} ${rng.pick(TASK_OBJECTS)} on /${slug(rng.pick(client.services))}`,
    priority: rng.pick(['high', 'medium', 'low']),
    status: rng.pick(['pending', 'pending', 'in_progress', 'done']),
    category_id: rng.pick(TASK_CATEGORIES),
    created_at: createdAt,
    updated_at: createdAt,
  }));
}

export function seoReportRows(ctx: GenContext): Row[] {
  const { rng, client } = ctx;
  return build(ctx, sized(ctx, 120, 6), 365, (i, createdAt) => ({
    id: `audit_${pad(i + 1)}`,
    url: i % 3 === 0 ? `${client.website}/` : `${client.website}/${slug(rng.pick(client.services))}`,
    score: rng.int(42, 98),
    issues_found: rng.int(0, 60),
    status: 'completed',
    created_at: createdAt,
  }));
}

export function blogCategoryRows(ctx: GenContext): Row[] {
  return build(ctx, BLOG_CATEGORIES.length, 720, (i, createdAt) => ({
    id: `cat_${pad(i + 1, 2)}`,
    name: BLOG_CATEGORIES[i],
    slug: slug(BLOG_CATEGORIES[i] ?? 'category'),
    created_at: createdAt,
  }));
}

export function blogAuthorRows(ctx: GenContext): Row[] {
  return build(ctx, sized(ctx, 6, 2), 720, (i, createdAt) => ({
    id: `author_${pad(i + 1, 2)}`,
    name: personName(ctx),
    bio: `Writes about ${ctx.rng.pick(ctx.client.services)} for ${ctx.client.name}.`,
    created_at: createdAt,
  }));
}

export function blogRows(ctx: GenContext): Row[] {
  const { rng, client } = ctx;
  const authors = sized(ctx, 6, 2);
  return build(ctx, sized(ctx, 240, 12), 540, (i, createdAt) => {
    const keyword = `${rng.pick(client.services)} ${client.city.toLowerCase()}`;
    const published = rng.chance(0.7);
    const title = nastyFirst(ctx, i)
      ? NASTY.blogTitle
      : rng.pick([
          `How to choose a ${keyword}`,
          `${titleCase(keyword)}: a complete guide`,
          `What ${keyword} costs`,
        ]);
    return {
      id: `blog_${pad(i + 1)}`,
      post_title: title,
      keyword,
      status: published ? 'published' : 'draft',
      published,
      category_id: `cat_${pad(rng.int(1, BLOG_CATEGORIES.length), 2)}`,
      author_id: `author_${pad(rng.int(1, authors), 2)}`,
      url: published ? `${client.website}/blog/${slug(title)}` : null,
      word_count: rng.int(800, 2400),
      created_at: createdAt,
      updated_at: createdAt,
    };
  });
}

export function geoArticleRows(ctx: GenContext): Row[] {
  const { rng, client } = ctx;
  return build(ctx, sized(ctx, 80, 8), 365, (i, createdAt) => {
    const keyword = rng.pick(client.services);
    return {
      id: `geo_${pad(i + 1)}`,
      title: `${titleCase(keyword)} in ${client.city}, ${client.state}`,
      keyword,
      city: client.city,
      state: client.state,
      status: rng.pick(['draft', 'published']),
      created_at: createdAt,
    };
  });
}

export function topicalMapRows(ctx: GenContext): Row[] {
  const { rng, client } = ctx;
  return build(ctx, sized(ctx, 20, 3), 365, (i, createdAt) => {
    const topic = rng.pick(client.services);
    return {
      id: `map_${pad(i + 1)}`,
      topic,
      depth: rng.int(2, 4),
      pillar: `The complete guide to ${topic}`,
      clusters: [`${topic} cost`, `${topic} near me`, `signs you need ${topic}`],
      created_at: createdAt,
    };
  });
}

export function pressReleaseRows(ctx: GenContext): Row[] {
  const { rng, client } = ctx;
  return build(ctx, sized(ctx, 25, 4), 540, (i, createdAt) => ({
    id: `pr_${pad(i + 1)}`,
    headline: `${client.name} ${rng.pick(['expands', 'launches', 'celebrates', 'announces'])} ${rng.pick(client.services)} service`,
    status: rng.pick(['draft', 'published']),
    created_at: createdAt,
  }));
}

export function faqRows(ctx: GenContext): Row[] {
  const { rng, client } = ctx;
  return build(ctx, sized(ctx, 30, 5), 365, (i, createdAt) => {
    const topic = rng.pick(client.services);
    return {
      id: `faq_${pad(i + 1)}`,
      topic,
      question: `How much does ${topic} cost in ${client.city}?`,
      answer: `It depends on the job; ${client.name} gives free quotes.`,
      status: 'published',
      created_at: createdAt,
    };
  });
}
