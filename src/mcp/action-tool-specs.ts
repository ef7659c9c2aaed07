import { z } from 'zod';
import type { Row } from '../gateway/index.js';
import { emailFromDraft, findDraft } from '../jobs/index.js';
import { deployPost } from '../requests/index.js';
import { type ToolContext, ToolRefusal } from './context.js';

/**
 * The action tools of docs/gateway-api.md §4.5 as data: each tool's name, its gateway action, its inputs and how
 * they become the action's fields (reading what the inputs leave out). action-tools.ts registers them.
 */

const clientId = z.string().min(1).max(100).describe('The client’s id (list_clients lists them)');
/** The inputs every action tool takes. */
export const common = {
  client_id: clientId,
  channel: z
    .string()
    .regex(/^[CG][A-Z0-9]{2,}$/, 'a Slack channel id such as C0123ABCD')
    .optional()
    .describe('Which of the client’s bound channels shows the job (its id); default the one bound first'),
  confirm_duplicate: z
    .boolean()
    .optional()
    .describe('Run even though an identical request or record exists (answered `duplicate` without it)'),
};

export type Args = Record<string, unknown>;

/** A tool's gateway fields, and the deploy's post when the tool read it (the approval does not read it again). */
export interface Prepared {
  fields: Record<string, unknown>;
  post?: { title?: string };
}
export const str = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);
const pick = (args: Args, map: Record<string, string>): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  for (const [from, to] of Object.entries(map)) if (args[from] !== undefined) out[to] = args[from];
  return out;
};

export interface ActionTool {
  name: string;
  action: string;
  description: string;
  input: z.ZodRawShape;
  /** The gateway fields from the tool's arguments (reads what docs/gateway-api.md §4.5's inputs leave out). */
  fields(args: Args, ctx: ToolContext, clientId: string): Promise<Prepared> | Prepared;
  annotations?: { destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
}

const url = z.string().url().max(2_000);
const PAID = 'A paid generation on the gateway (each call spends credits).';
const QUEUED =
  'Answers at once with a job reference; get_job reports its state and result. The job shows in the client’s Slack channel.';
const GUARDED =
  'Destructive: it does NOT run now. It posts an approval card in the client’s Slack channel and answers `pending_approval`; only an approver’s click in Slack runs it (never the requester, never a tool).';

async function latest(ctx: ToolContext, resource: string, clientId: string): Promise<Row | undefined> {
  const page = await ctx.services.gateway.read(resource, { clientId, limit: 1 });
  return page.data[0];
}

/** The draft of an outreach email (a generate_outreach_email job this person's client ran), as the email's fields. */
async function outreachDraft(ctx: ToolContext, clientId: string, emailId: string) {
  const draft = await findDraft(ctx.services.queue, 'send_prospect_email', emailId, { clientId });
  if (!draft)
    throw new ToolRefusal(
      `No drafted outreach email \`${emailId}\` for this client: give the job_id generate_outreach_email answered, or to, subject and html.`,
    );
  return emailFromDraft(draft.result);
}

export const ACTION_TOOLS: ActionTool[] = [
  {
    name: 'run_seo_audit',
    action: 'seo_audit',
    description: `Runs a site audit of a URL (gateway \`seo_audit\`; safe to repeat). ${QUEUED} Its result’s id is the audit_id of get_audit_issues.`,
    input: { url: url.describe('The page or site to audit') },
    fields: (a) => ({ fields: pick(a, { url: 'url' }) }),
    annotations: { idempotentHint: true, openWorldHint: true },
  },
  {
    name: 'refresh_backlinks',
    action: 'fetch_backlinks',
    description: `Refreshes the client’s backlink profile (gateway \`fetch_backlinks\`; safe to repeat). ${QUEUED}`,
    input: {},
    fields: () => ({ fields: {} }),
    annotations: { idempotentHint: true, openWorldHint: true },
  },
  {
    name: 'generate_keyword_ideas',
    action: 'generate_keywords',
    description: `Keyword ideas with live volume and difficulty (gateway \`generate_keywords\`). ${PAID} ${QUEUED}`,
    input: {
      seed: z.string().min(1).max(200).describe('Seed keyword'),
      location: z.string().max(200).optional().describe('Location, such as Austin, TX'),
    },
    fields: (a) => ({ fields: pick(a, { seed: 'seed', location: 'location' }) }),
  },
  {
    name: 'generate_topical_map',
    action: 'generate_topical_map',
    description: `Builds a pillar-and-cluster topical map (gateway \`generate_topical_map\`). ${PAID} ${QUEUED}`,
    input: { topic: z.string().min(1).max(200), depth: z.number().int().min(1).max(10).optional() },
    fields: (a) => ({ fields: pick(a, { topic: 'topic', depth: 'depth' }) }),
  },
  {
    name: 'generate_article',
    action: 'generate_blog',
    description: `Drafts a blog article for a keyword (gateway \`generate_blog\`). ${PAID} ${QUEUED} get_job gives ok, article_id, status, title and word_count once it is done.`,
    input: {
      keyword: z.string().min(1).max(200).describe('The article’s target keyword'),
      category_id: z
        .string()
        .max(100)
        .optional()
        .describe('A blog category id (list_resource blog_categories)'),
      tone: z.string().max(50).optional(),
    },
    fields: (a) => ({ fields: pick(a, { keyword: 'keyword', category_id: 'category_id', tone: 'tone' }) }),
  },
  {
    name: 'deploy_article',
    action: 'deploy_blog',
    description: `Publishes an article to the client’s connected site (gateway \`deploy_blog\`, its \`post_id\` the article_id). Every deploy names its article. ${GUARDED}`,
    input: {
      article_id: z
        .string()
        .min(1)
        .max(150)
        .describe('The article’s id, the gateway’s post_id (list_articles, or get_job of generate_article)'),
    },
    async fields(a, ctx, id) {
      // The gateway's document does not say what a deploy without its post publishes: the bot never sends one.
      const postId = str(a.article_id);
      const find = 'list_articles lists them; get_job of generate_article gives a new one’s article_id.';
      if (!postId)
        throw new ToolRefusal(
          `Give article_id (the gateway’s post_id): every deploy names its article. ${find}`,
        );
      // Read once, here, to answer in this tool's words; the approval's card takes its title from this read.
      const post = await deployPost(ctx.services, id, postId);
      if ('refusal' in post)
        throw new ToolRefusal(
          `The gateway has no article \`${postId}\` for this client, so nothing was asked for. ${find}`,
        );
      return { fields: { post_id: postId }, post };
    },
    annotations: { destructiveHint: true, idempotentHint: false, openWorldHint: true },
  },
  {
    name: 'optimize_page',
    action: 'optimize_page',
    description: `On-page fixes for a URL’s title, meta and headings (gateway \`optimize_page\`). ${PAID} ${QUEUED}`,
    input: { url, keyword: z.string().max(200).optional() },
    fields: (a) => ({ fields: pick(a, { url: 'url', keyword: 'keyword' }) }),
  },
  {
    name: 'index_url',
    action: 'index_url',
    description: `Submits a URL for indexing (gateway \`index_url\`). ${QUEUED}`,
    input: { url },
    fields: (a) => ({ fields: pick(a, { url: 'url' }) }),
    annotations: { openWorldHint: true },
  },
  {
    name: 'generate_press_release',
    action: 'generate_press_release',
    description: `Drafts a press release for review (gateway \`generate_press_release\`; the topic is its headline). ${PAID} ${QUEUED}`,
    input: {
      topic: z.string().min(1).max(300).describe('The headline'),
      body_points: z.array(z.string().max(500)).max(20).optional(),
    },
    fields: (a) => ({
      fields: {
        headline: a.topic,
        ...(Array.isArray(a.body_points) ? { body_points: (a.body_points as string[]).join('\n') } : {}),
      },
    }),
  },
  {
    name: 'generate_gbp_post',
    action: 'generate_gbp_post',
    description: `Drafts a Business Profile post (gateway \`generate_gbp_post\`). ${PAID} ${QUEUED}`,
    input: { topic: z.string().min(1).max(300), cta: z.string().max(100).optional() },
    fields: (a) => ({ fields: pick(a, { topic: 'topic', cta: 'cta' }) }),
  },
  {
    name: 'run_local_grid_scan',
    action: 'run_grid_search',
    description: `A geo-grid rank scan for a keyword (gateway \`run_grid_search\`). Without lat and lng it scans where the client’s latest grid search was centred; a client with none needs them. ${QUEUED}`,
    input: {
      keyword: z.string().min(1).max(200),
      lat: z.number().min(-90).max(90).optional(),
      lng: z.number().min(-180).max(180).optional(),
      radius: z.number().positive().max(100).optional(),
    },
    async fields(a, ctx, id) {
      let { lat, lng } = a;
      if (lat === undefined || lng === undefined) {
        const last = await latest(ctx, 'grid_searches', id);
        if (typeof last?.lat !== 'number' || typeof last?.lng !== 'number')
          throw new ToolRefusal(
            'This client has no earlier grid search to take a centre from: give lat and lng.',
          );
        lat = last.lat;
        lng = last.lng;
      }
      return {
        fields: { keyword: a.keyword, lat, lng, ...(a.radius !== undefined ? { radius: a.radius } : {}) },
      };
    },
    annotations: { openWorldHint: true },
  },
  {
    name: 'analyze_llm_visibility',
    action: 'run_llm_visibility',
    description: `Checks how answer engines describe the brand for a prompt (gateway \`run_llm_visibility\`). The brand defaults to the client’s name. ${PAID} ${QUEUED}`,
    input: {
      prompt: z.string().min(1).max(2_000).describe('The question people ask an assistant'),
      brand_name: z.string().max(200).optional().describe('Default: the client’s name'),
      competitors: z.array(z.string().max(200)).max(20).optional(),
    },
    async fields(a, ctx, id) {
      let brand = str(a.brand_name);
      if (!brand) {
        const page = await ctx.services.gateway.read('clients', {
          filter: { field: 'id', value: id },
          limit: 1,
        });
        brand = str(page.data[0]?.name);
        if (!brand) throw new ToolRefusal('The client has no name on the gateway: give brand_name.');
      }
      return {
        fields: {
          prompt: a.prompt,
          brand_name: brand,
          ...(Array.isArray(a.competitors) ? { competitors: (a.competitors as string[]).join(', ') } : {}),
        },
      };
    },
    annotations: { openWorldHint: true },
  },
  {
    name: 'generate_outreach_email',
    action: 'generate_outreach_email',
    description: `Drafts an outreach email to a prospect’s page; does not send (gateway \`generate_outreach_email\`). ${PAID} ${QUEUED} Its job_id is the email_id of send_prospect_email.`,
    input: { prospect: url.describe('The prospect’s page URL'), tone: z.string().max(50).optional() },
    fields: (a) => ({ fields: pick(a, { prospect: 'prospectUrl', tone: 'tone' }) }),
  },
  {
    name: 'send_prospect_email',
    action: 'send_prospect_email',
    description: `Sends a prospect email (gateway \`send_prospect_email\`): a drafted one (email_id, plus to when the draft has no recipient) or to, subject and html. ${GUARDED}`,
    input: {
      email_id: z.string().max(200).optional().describe('The job_id generate_outreach_email answered'),
      to: z.string().email().max(320).optional(),
      subject: z.string().max(200).optional(),
      html: z.string().max(50_000).optional(),
    },
    async fields(a, ctx, id) {
      const draft = str(a.email_id) ? await outreachDraft(ctx, id, String(a.email_id)) : {};
      const fields = {
        to: str(a.to) ?? draft.to,
        subject: str(a.subject) ?? draft.subject,
        html: str(a.html) ?? draft.html,
      };
      const missing = Object.entries(fields)
        .filter(([, v]) => v === undefined)
        .map(([k]) => k);
      if (missing.length) throw new ToolRefusal(`Give ${missing.join(', ')} (the draft has none).`);
      return { fields };
    },
    annotations: { destructiveHint: true, idempotentHint: false, openWorldHint: true },
  },
];
