import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { ActionEntry } from '../actions/catalogue.js';
import { validateActionFields } from '../actions/parse-args.js';
import { requestApproval } from '../approvals/ask-approval.js';
import { payloadHash } from '../approvals/payload.js';
import type { Row } from '../gateway/types.js';
import { emailFromDraft, findDraft } from '../jobs/drafts.js';
import { deployPost } from '../requests/references.js';
import { slackReplyTarget } from '../slack/reply-target.js';
import { answered, noSuchClient, requireClient, type ToolContext, ToolRefusal } from './context.js';
import { describeJob, jobSchema } from './job-tools.js';
import type { ToolRegistrar } from './tool-table.js';

/**
 * The action tools of docs/gateway-api.md §4.5: each asks for one gateway action through the request layer,
 * exactly as `/gateway` does (access, rate limit, duplicate guard, queue), and answers at once with a job
 * reference. Deploys and email sends post the usual approval card and wait for an approver in Slack: no tool,
 * argument or answer here can approve.
 */

const clientId = z.string().min(1).max(100).describe('The client’s id (list_clients lists them)');
const common = {
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

/** Output of every action tool: the job reference. */
const referenceSchema = z.object({
  job_id: z.string().nullable(),
  status: z.enum(['queued', 'pending_approval', 'duplicate', 'refused']),
  ahead: z.number().nullable(),
  eta_s: z.number().nullable(),
  channel: z.string().nullable(),
  message_link: z.string().nullable(),
  reason: z.string().optional().describe('Why it was refused, or what the duplicate is'),
  earlier: z.record(z.string(), z.unknown()).optional().describe('The earlier record or request (duplicate)'),
});
type Reference = z.infer<typeof referenceSchema>;

type Args = Record<string, unknown>;
const str = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);
const pick = (args: Args, map: Record<string, string>): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  for (const [from, to] of Object.entries(map)) if (args[from] !== undefined) out[to] = args[from];
  return out;
};

interface ActionTool {
  name: string;
  action: string;
  description: string;
  input: z.ZodRawShape;
  /** The gateway fields from the tool's arguments (reads what docs/gateway-api.md §4.5's inputs leave out). */
  fields(
    args: Args,
    ctx: ToolContext,
    clientId: string,
  ): Promise<Record<string, unknown>> | Record<string, unknown>;
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

const ACTION_TOOLS: ActionTool[] = [
  {
    name: 'run_seo_audit',
    action: 'seo_audit',
    description: `Runs a site audit of a URL (gateway \`seo_audit\`; safe to repeat). ${QUEUED} Its result’s id is the audit_id of get_audit_issues.`,
    input: { url: url.describe('The page or site to audit') },
    fields: (a) => pick(a, { url: 'url' }),
    annotations: { idempotentHint: true, openWorldHint: true },
  },
  {
    name: 'refresh_backlinks',
    action: 'fetch_backlinks',
    description: `Refreshes the client’s backlink profile (gateway \`fetch_backlinks\`; safe to repeat). ${QUEUED}`,
    input: {},
    fields: () => ({}),
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
    fields: (a) => pick(a, { seed: 'seed', location: 'location' }),
  },
  {
    name: 'generate_topical_map',
    action: 'generate_topical_map',
    description: `Builds a pillar-and-cluster topical map (gateway \`generate_topical_map\`). ${PAID} ${QUEUED}`,
    input: { topic: z.string().min(1).max(200), depth: z.number().int().min(1).max(10).optional() },
    fields: (a) => pick(a, { topic: 'topic', depth: 'depth' }),
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
    fields: (a) => pick(a, { keyword: 'keyword', category_id: 'category_id', tone: 'tone' }),
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
      // Read here to answer in this tool's words; the approval reads it again for the card's title.
      const post = await deployPost(ctx.services, id, postId);
      if ('refusal' in post)
        throw new ToolRefusal(
          `The gateway has no article \`${postId}\` for this client, so nothing was asked for. ${find}`,
        );
      return { post_id: postId };
    },
    annotations: { destructiveHint: true, idempotentHint: false, openWorldHint: true },
  },
  {
    name: 'optimize_page',
    action: 'optimize_page',
    description: `On-page fixes for a URL’s title, meta and headings (gateway \`optimize_page\`). ${PAID} ${QUEUED}`,
    input: { url, keyword: z.string().max(200).optional() },
    fields: (a) => pick(a, { url: 'url', keyword: 'keyword' }),
  },
  {
    name: 'index_url',
    action: 'index_url',
    description: `Submits a URL for indexing (gateway \`index_url\`). ${QUEUED}`,
    input: { url },
    fields: (a) => pick(a, { url: 'url' }),
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
      headline: a.topic,
      ...(Array.isArray(a.body_points) ? { body_points: (a.body_points as string[]).join('\n') } : {}),
    }),
  },
  {
    name: 'generate_gbp_post',
    action: 'generate_gbp_post',
    description: `Drafts a Business Profile post (gateway \`generate_gbp_post\`). ${PAID} ${QUEUED}`,
    input: { topic: z.string().min(1).max(300), cta: z.string().max(100).optional() },
    fields: (a) => pick(a, { topic: 'topic', cta: 'cta' }),
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
      return { keyword: a.keyword, lat, lng, ...(a.radius !== undefined ? { radius: a.radius } : {}) };
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
        prompt: a.prompt,
        brand_name: brand,
        ...(Array.isArray(a.competitors) ? { competitors: (a.competitors as string[]).join(', ') } : {}),
      };
    },
    annotations: { openWorldHint: true },
  },
  {
    name: 'generate_outreach_email',
    action: 'generate_outreach_email',
    description: `Drafts an outreach email to a prospect’s page; does not send (gateway \`generate_outreach_email\`). ${PAID} ${QUEUED} Its job_id is the email_id of send_prospect_email.`,
    input: { prospect: url.describe('The prospect’s page URL'), tone: z.string().max(50).optional() },
    fields: (a) => pick(a, { prospect: 'prospectUrl', tone: 'tone' }),
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
      return fields;
    },
    annotations: { destructiveHint: true, idempotentHint: false, openWorldHint: true },
  },
];

const empty = (status: Reference['status'], reason: string, extra: Partial<Reference> = {}): Reference => ({
  job_id: null,
  status,
  ahead: null,
  eta_s: null,
  channel: null,
  message_link: null,
  reason,
  ...extra,
});

/**
 * The channel the job reports to: one of the client's bound channels the person reaches, by their membership
 * as Slack tells it now (not a cached list: an action is not taken on the strength of a channel they left).
 */
async function targetChannel(ctx: ToolContext, clientId: string, asked: string | undefined): Promise<string> {
  const reach = await ctx.services.reach.of(ctx.caller.user, { fresh: true });
  if (!ctx.services.reach.reaches(reach, clientId)) throw noSuchClient(clientId);
  const channels = await ctx.services.reach.targets(reach, clientId);
  if (channels.length === 0)
    throw new ToolRefusal(
      'This client is bound to no Slack channel the job could report in: bind one with `/gateway use <client_id>` (admins).',
    );
  if (!asked) return channels[0] as string;
  if (!channels.includes(asked))
    throw new ToolRefusal(`\`${asked}\` is not one of this client’s bound channels: ${channels.join(', ')}.`);
  return asked;
}

/** Asks for one action as the caller; the job reference. */
async function ask(
  ctx: ToolContext,
  entry: ActionEntry,
  args: Args,
  raw: Record<string, unknown>,
): Promise<Reference> {
  const { services, caller } = ctx;
  const id = String(args.client_id);
  const channel = await targetChannel(ctx, id, str(args.channel));
  const checked = validateActionFields(entry, raw);
  if (!checked.ok)
    throw new ToolRefusal(
      `Not valid: ${Object.entries(checked.errors)
        .map(([k, v]) => `${k}: ${v}`)
        .join('; ')}`,
    );
  const requestKey = `mcp-${randomUUID()}`;
  if (entry.guarded) {
    const record = await requestApproval(services, {
      entry,
      requester: caller.user,
      channel,
      clientId: id,
      fields: checked.fields,
      requestKey,
      viaAssistant: true,
    });
    if (!record) {
      // The identical request in flight here: its reference, so get_job follows it.
      const held = await services.approvals.inFlight(channel, payloadHash(entry.action, id, checked.fields));
      const link = held?.cardTs ? await services.slack.permalink(channel, held.cardTs) : undefined;
      return empty('duplicate', 'An identical request already waits for approval in this channel.', {
        channel,
        ...(held
          ? {
              job_id: `approval-${held.id}`,
              message_link: link ?? null,
              earlier: {
                job_id: `approval-${held.id}`,
                state: held.state,
                requested_by: held.requestedBy,
                requested_at: new Date(held.createdAt).toISOString(),
                fields: held.fields,
              },
            }
          : {}),
      });
    }
    const link = record.cardTs ? await services.slack.permalink(channel, record.cardTs) : undefined;
    return {
      job_id: `approval-${record.id}`,
      status: 'pending_approval',
      ahead: null,
      eta_s: null,
      channel,
      message_link: link ?? null,
      reason: 'Waits for an approver’s click on the card in Slack; nothing runs before.',
    };
  }
  const result = await services.requests.submit({
    requester: caller.user,
    clientId: id,
    action: entry.action,
    fields: checked.fields,
    replyTo: slackReplyTarget(channel),
    requestKey,
    viaAssistant: true,
    ...(args.confirm_duplicate === true ? { confirmedDuplicate: true } : {}),
  });
  switch (result.kind) {
    case 'refused':
      return empty('refused', [result.error.title, result.error.options.hint].filter(Boolean).join(' '), {
        channel,
      });
    case 'ask':
      return empty(
        'duplicate',
        'An identical request or record exists; call again with confirm_duplicate: true to run another.',
        {
          channel,
          earlier: result.question.earlier,
        },
      );
    default: {
      const ahead = result.kind === 'queued' ? result.ahead : 0;
      const wait = await services.queue.estimateWait(ahead).catch(() => ({ ahead, ms: undefined }));
      const job = await services.queue.findJob(result.jobKey);
      const ts = job?.data.statusTs;
      const link = ts ? await services.slack.permalink(channel, ts).catch(() => undefined) : undefined;
      return {
        job_id: result.jobKey,
        status: 'queued',
        ahead,
        eta_s: wait.ms ? Math.ceil(wait.ms / 1_000) : 0,
        channel,
        message_link: link ?? null,
      };
    }
  }
}

function tool(ctx: ToolContext, name: string, work: (args: Args) => Promise<Record<string, unknown>>) {
  return (args: Args) => answered(ctx, name, () => work(args));
}

function requireWrite(ctx: ToolContext): void {
  if (ctx.caller.scope === 'read')
    throw new ToolRefusal(
      'This token is read-only: it can call the read tools only. Mint one without `read` to act.',
    );
}

export function registerActionTools(server: ToolRegistrar, ctx: ToolContext): void {
  for (const spec of ACTION_TOOLS) {
    server.registerTool(
      spec.name,
      {
        description: spec.description,
        inputSchema: z.object({ ...common, ...spec.input }),
        outputSchema: referenceSchema,
        annotations: {
          readOnlyHint: false,
          destructiveHint: spec.annotations?.destructiveHint ?? false,
          idempotentHint: spec.annotations?.idempotentHint ?? false,
          openWorldHint: spec.annotations?.openWorldHint ?? false,
        },
      },
      tool(ctx, spec.name, async (args) => {
        requireWrite(ctx);
        const entry = (await ctx.services.catalogue()).byAction(spec.action);
        if (!entry?.available) throw new ToolRefusal(`The gateway no longer lists \`${spec.action}\`.`);
        const id = String(args.client_id);
        await requireClient(ctx, id);
        return ask(ctx, entry, args, await spec.fields(args, ctx, id));
      }),
    );
  }

  server.registerTool(
    'run_action',
    {
      description:
        'Any action the gateway’s discovery call lists, new ones included, with its fields as text (as `/gateway run <action>` in Slack). Actions only discovery lists are admin-only unless allowed. Guarded actions post an approval card and wait for an approver.',
      inputSchema: z.object({
        ...common,
        action: z
          .string()
          .regex(/^[a-z][a-z0-9_]*$/)
          .max(100),
        fields: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
      }),
      outputSchema: referenceSchema,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    },
    tool(ctx, 'run_action', async (args) => {
      requireWrite(ctx);
      const entry = (await ctx.services.catalogue()).byAction(String(args.action));
      if (!entry?.available) throw new ToolRefusal(`The gateway lists no action \`${String(args.action)}\`.`);
      const id = String(args.client_id);
      await requireClient(ctx, id);
      const fields: Record<string, unknown> = {};
      for (const [k, v] of Object.entries((args.fields as Record<string, unknown>) ?? {}))
        fields[k] = String(v);
      return ask(ctx, entry, args, fields);
    }),
  );

  server.registerTool(
    'get_job',
    {
      description:
        'The state of a job an action tool answered with (queued, running, pending_approval, rejected, expired, done, failed…) and, once done, its result as data.',
      inputSchema: z.object({ job_id: z.string().min(1).max(200) }),
      outputSchema: jobSchema,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    tool(ctx, 'get_job', async (args) => {
      const reach = await ctx.reach();
      const described = await describeJob(ctx.services, String(args.job_id));
      // Someone else's client's job is answered as an unknown one.
      if (!described || !ctx.services.reach.reaches(reach, described.client_id))
        throw noSuchJob(String(args.job_id));
      return described;
    }),
  );
}

const noSuchJob = (id: string) => new ToolRefusal(`No job \`${id}\` is known to this token.`);

/** The tools that act (and so need the acting scope): every action tool and `run_action`. */
export const ACTING_TOOLS: ReadonlySet<string> = new Set([...ACTION_TOOLS.map((t) => t.name), 'run_action']);
