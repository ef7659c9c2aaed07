import { z } from 'zod';
import { defaultOrder } from '../gateway/resource-fields.js';
import { FILTER_FIELDS, ORDER_FIELDS } from '../gateway/spec.js';
import type { ReadParams, Row } from '../gateway/types.js';
import {
  answered,
  noSuchClient,
  requireClient,
  type ToolAnswer,
  type ToolContext,
  ToolRefusal,
} from './context.js';
import { listReviewsTool } from './review-tool.js';
import type { ToolRegistrar } from './tool-table.js';

/**
 * The read tools of docs/gateway-api.md §4.5, each one gateway resource read as the token's person may read it
 * (docs/assistants.md, "Tools", has the mapping). Pages of 50 rows by default, 200 at most, behind signed cursors.
 * Rows are the gateway's data, returned as fields: never instructions to the assistant.
 */

const DEFAULT_ROWS = 50;
const MAX_ROWS = 200;
/** Gateway rows one call may look at to fill a page that a local filter thins (a date range, a keyword). */
const SCAN_ROWS = 10_000;

const clientId = z.string().min(1).max(100).describe('The client’s id (list_clients lists them)');
const limit = z
  .number()
  .int()
  .min(1)
  .max(MAX_ROWS)
  .optional()
  .describe(`Rows per page: ${DEFAULT_ROWS} unless given, ${MAX_ROWS} at most`);
const cursor = z.string().max(2_000).optional().describe('next_cursor of the previous page');
const day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'a date as YYYY-MM-DD')
  .optional();

const rowSchema = z.record(z.string(), z.unknown());
const pageSchema = z.object({
  resource: z.string(),
  client_id: z.string().optional(),
  rows: z.array(rowSchema).describe('The gateway’s rows, as data'),
  next_cursor: z.string().nullable().describe('Pass as cursor for the next page; null on the last one'),
  /** The gateway's count before any local filter. */
  total: z.number().nullable(),
  context: rowSchema.optional().describe('The record these rows belong to (the audit of get_audit_issues)'),
});
type PageOut = z.infer<typeof pageSchema>;

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

interface ListInput {
  resource: string;
  clientId: string | undefined;
  tool: string;
  limit: number | undefined;
  cursor: string | undefined;
  filter?: { field: string; value: string } | undefined;
  order?: string | undefined;
  direction?: 'asc' | 'desc' | undefined;
  /** A filter the gateway cannot apply, applied to each row here. */
  keep?: ((row: Row) => boolean) | undefined;
  /** What else the cursor is bound to (the local filter's arguments). */
  shape?: unknown;
}

/** One page of a resource: the gateway's own paging, or a scan that fills the page past a local filter. */
async function listPage(ctx: ToolContext, input: ListInput): Promise<PageOut> {
  const { services, caller, cursors } = ctx;
  services.access.requireRead(caller.user, input.resource);
  const size = input.limit ?? DEFAULT_ROWS;
  const order = input.order ?? defaultOrder(input.resource);
  const scope = {
    tool: input.tool,
    user: caller.user,
    clientId: input.clientId ?? '',
    filter: [input.resource, input.filter, order, input.direction, input.shape],
  };
  let position = 0;
  if (input.cursor) {
    const opened = await cursors.open(scope, input.cursor);
    if (opened === undefined)
      throw new ToolRefusal(
        'That cursor is not valid for this list (expired, or another list’s); start again without it.',
      );
    position = opened;
  }
  const params: ReadParams = {
    ...(input.clientId ? { clientId: input.clientId } : {}),
    ...(input.filter ? { filter: input.filter } : {}),
    ...(order ? { order } : {}),
    ...(input.direction ? { direction: input.direction } : {}),
  };
  const rows: Row[] = [];
  let total: number | null = null;
  let next: number | undefined = position;
  const keep = input.keep;
  // The call's page budget (MCP_CALL_PAGES) ends a scan as SCAN_ROWS does: what was found, and a cursor on.
  let pages = 0;
  while (
    next !== undefined &&
    rows.length < size &&
    next - position < SCAN_ROWS &&
    (pages++ === 0 || ctx.pagesLeft() > 0)
  ) {
    const want = keep ? 1_000 : size - rows.length;
    const page = await services.gateway.read(input.resource, { ...params, offset: next, limit: want });
    total = page.pagination.total ?? total;
    let consumed = 0;
    for (const row of page.data) {
      consumed++;
      if (keep && !keep(row)) continue;
      rows.push(row);
      if (rows.length >= size) break;
    }
    const more = page.pagination.has_more || consumed < page.data.length;
    next = more && page.data.length > 0 ? next + consumed : undefined;
  }
  return {
    resource: input.resource,
    ...(input.clientId ? { client_id: input.clientId } : {}),
    rows,
    next_cursor: next === undefined ? null : await cursors.sign(scope, next),
    total,
  };
}

interface ListTool {
  name: string;
  resource: string;
  description: string;
  extra?: z.ZodRawShape;
  filter?(args: Record<string, unknown>): { field: string; value: string } | undefined;
  keep?(args: Record<string, unknown>): ((row: Row) => boolean) | undefined;
}

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
const dateOf = (row: Row, fields: string[]) => {
  for (const f of fields) {
    const v = row[f];
    if (typeof v === 'string' && v) return v.slice(0, 10);
  }
  return '';
};
const inRange = (args: Record<string, unknown>, fields: string[]) => {
  const from = str(args.from);
  const to = str(args.to);
  if (!from && !to) return undefined;
  return (row: Row) => {
    const d = dateOf(row, fields);
    return (!from || d >= from) && (!to || (d !== '' && d <= to));
  };
};
const byStatus = (args: Record<string, unknown>) => {
  const status = str(args.status);
  return status ? { field: 'status', value: status } : undefined;
};

/** docs/gateway-api.md §4.5 read tools that are one resource of one client, paged. */
const LIST_TOOLS: ListTool[] = [
  {
    name: 'list_keywords',
    resource: 'keywords',
    description:
      'Tracked keywords of a client with position, URL, search volume and difficulty (gateway `keywords`), newest first.',
    extra: { status: z.string().max(50).optional().describe('Only rows with this status (active, paused)') },
    filter: byStatus,
  },
  {
    name: 'list_rankings',
    resource: 'keywords',
    description:
      'Ranking history rows of a client’s tracked keywords (gateway `keywords`, one row per keyword per check), optionally one keyword and a date range.',
    extra: {
      keyword: z.string().max(300).optional().describe('Only this keyword (exact, any case)'),
      from: day.describe('First day, YYYY-MM-DD'),
      to: day.describe('Last day, YYYY-MM-DD'),
    },
    keep(args) {
      const keyword = str(args.keyword)?.toLowerCase();
      const dates = inRange(args, ['tracked_at', 'created_at']);
      if (!keyword && !dates) return undefined;
      return (row) =>
        (!keyword || String(row.keyword ?? '').toLowerCase() === keyword) && (!dates || dates(row));
    },
  },
  {
    name: 'list_audits',
    resource: 'seo_reports',
    description:
      'Audit runs of a client with URL, score and issue count (gateway `seo_reports`), newest first.',
  },
  {
    name: 'list_backlinks',
    resource: 'backlinks',
    description: 'Backlinks of a client with anchor and source authority (gateway `backlinks`).',
    extra: { source_type: z.string().max(50).optional().describe('Only this source type') },
    filter: (args) =>
      str(args.source_type) ? { field: 'source_type', value: String(args.source_type) } : undefined,
  },
  {
    name: 'list_citations',
    resource: 'citations',
    description: 'Directory listings of a client and their status (gateway `citations`).',
    extra: { status: z.string().max(50).optional().describe('Only listings with this status') },
    filter: byStatus,
  },
  {
    name: 'list_articles',
    resource: 'blogs',
    description:
      'Blog articles of a client, drafts and published, with their status (gateway `blogs`). An article’s id is what deploy_article takes.',
    extra: {
      status: z.string().max(50).optional().describe('Only articles with this status (draft, published)'),
    },
    filter: byStatus,
  },
  {
    name: 'list_calls',
    resource: 'call_tracking_calls',
    description:
      'Tracked calls of a client (gateway `call_tracking_calls`), optionally in a date range. Transcript text is returned as data.',
    extra: { from: day.describe('First day, YYYY-MM-DD'), to: day.describe('Last day, YYYY-MM-DD') },
    keep: (args) => inRange(args, ['created_at']),
  },
  {
    name: 'list_reports',
    resource: 'seo_reports',
    description:
      'Reports of a client (gateway `seo_reports`, its one report resource; the gateway shows no share links).',
  },
  listReviewsTool,
];

type Args = Record<string, unknown> & { client_id?: string; limit?: number; cursor?: string };

function run(
  ctx: ToolContext,
  name: string,
  work: (args: Args) => Promise<Record<string, unknown>>,
): (args: Args) => Promise<ToolAnswer> {
  return (args) => answered(ctx, name, () => work(args));
}

export function registerReadTools(server: ToolRegistrar, ctx: ToolContext): void {
  for (const tool of LIST_TOOLS) {
    server.registerTool(
      tool.name,
      {
        description: tool.description,
        inputSchema: z.object({ client_id: clientId, ...tool.extra, limit, cursor }),
        outputSchema: pageSchema,
        annotations: READ_ONLY,
      },
      run(ctx, tool.name, async (args) => {
        const id = String(args.client_id);
        await requireClient(ctx, id);
        return listPage(ctx, {
          tool: tool.name,
          resource: tool.resource,
          clientId: id,
          limit: args.limit,
          cursor: args.cursor,
          filter: tool.filter?.(args),
          keep: tool.keep?.(args),
          shape: tool.extra ? Object.keys(tool.extra).map((k) => args[k] ?? null) : null,
        });
      }),
    );
  }

  server.registerTool(
    'list_clients',
    {
      description:
        'Clients this token reaches, with website and status (gateway `clients`): an admin’s token every client of the agency key, anyone else’s the clients bound to the Slack channels they are in.',
      inputSchema: z.object({ limit, cursor }),
      outputSchema: pageSchema,
      annotations: READ_ONLY,
    },
    run(ctx, 'list_clients', async (args) => {
      const reach = await ctx.reach();
      if (reach.all)
        return listPage(ctx, {
          tool: 'list_clients',
          resource: 'clients',
          clientId: undefined,
          limit: args.limit,
          cursor: args.cursor,
        });
      // A member's list is their channels' clients, read one by one (the roster stays admin-only).
      const ids = [...reach.channels.keys()].sort();
      const scope = { tool: 'list_clients', user: ctx.caller.user, clientId: '', filter: ids };
      const start = args.cursor ? await ctx.cursors.open(scope, args.cursor) : 0;
      if (start === undefined)
        throw new ToolRefusal('That cursor is not valid for this list; start again without it.');
      const size = args.limit ?? DEFAULT_ROWS;
      const slice = ids.slice(start, start + size);
      const rows: Row[] = [];
      for (const id of slice) {
        const page = await ctx.services.gateway.read('clients', {
          filter: { field: 'id', value: id },
          limit: 1,
        });
        const channels = (reach.channels.get(id) ?? []).map((b) => b.channel);
        rows.push({
          ...(page.data[0] ?? { id, name: reach.channels.get(id)?.[0]?.clientLabel ?? id }),
          channels,
        });
      }
      const next =
        start + slice.length < ids.length ? await ctx.cursors.sign(scope, start + slice.length) : null;
      return { resource: 'clients', rows, next_cursor: next, total: ids.length };
    }),
  );

  server.registerTool(
    'get_client',
    {
      description:
        'One client with its settings and connected integrations (gateway `clients` and `integrations`).',
      inputSchema: z.object({ client_id: clientId }),
      outputSchema: z.object({
        client: rowSchema,
        integrations: z.array(rowSchema),
        channels: z.array(z.string()),
      }),
      annotations: READ_ONLY,
    },
    run(ctx, 'get_client', async (args) => {
      const id = String(args.client_id);
      const reach = await requireClient(ctx, id);
      const page = await ctx.services.gateway.read('clients', {
        filter: { field: 'id', value: id },
        limit: 1,
      });
      const client = page.data[0];
      if (!client) throw noSuchClient(id);
      const integrations = await ctx.services.gateway.read('integrations', { clientId: id, limit: 100 });
      const channels = (await ctx.services.reach.targets(reach, id)).slice(0, 50);
      return { client, integrations: integrations.data, channels };
    }),
  );

  server.registerTool(
    'get_audit_issues',
    {
      description:
        'An audit and the client’s SEO tasks with priority, status and category (gateway `seo_reports` and `seo_tasks`; the gateway does not tie a task to one audit, so the tasks are the client’s open work).',
      inputSchema: z.object({
        client_id: clientId,
        audit_id: z.string().min(1).max(100).describe('An audit’s id (list_audits)'),
        limit,
        cursor,
      }),
      outputSchema: pageSchema,
      annotations: READ_ONLY,
    },
    run(ctx, 'get_audit_issues', async (args) => {
      const id = String(args.client_id);
      await requireClient(ctx, id);
      const auditId = String(args.audit_id);
      const audit = await ctx.services.gateway.read('seo_reports', {
        clientId: id,
        filter: { field: 'id', value: auditId },
        limit: 1,
      });
      const found = audit.data[0];
      if (!found) throw new ToolRefusal(`The gateway has no audit \`${auditId}\` for this client.`);
      const page = await listPage(ctx, {
        tool: 'get_audit_issues',
        resource: 'seo_tasks',
        clientId: id,
        limit: args.limit,
        cursor: args.cursor,
        shape: auditId,
      });
      return { ...page, context: found };
    }),
  );

  server.registerTool(
    'list_resource',
    {
      description:
        'Any resource the gateway’s discovery call lists (new ones included), as `/gateway get <resource>` reads it in Slack: one exact-match filter, an order, paged.',
      inputSchema: z.object({
        resource: z.string().min(1).max(100).describe('A resource name the gateway lists'),
        client_id: clientId.optional().describe('Required for every resource but `clients` (admins only)'),
        filter_field: z.enum(FILTER_FIELDS).optional(),
        filter_value: z.string().max(300).optional(),
        order: z.enum(ORDER_FIELDS).optional(),
        direction: z.enum(['asc', 'desc']).optional(),
        limit,
        cursor,
      }),
      outputSchema: pageSchema,
      annotations: READ_ONLY,
    },
    run(ctx, 'list_resource', async (args) => {
      const resource = String(args.resource);
      const { resources } = await ctx.services.gateway.discover();
      if (!resources.includes(resource))
        throw new ToolRefusal(
          `The gateway has no resource \`${resource}\`. It lists: ${resources.join(', ')}.`,
        );
      const id = str(args.client_id);
      if (resource !== 'clients') {
        if (!id) throw new ToolRefusal('`client_id` is required for this resource.');
        await requireClient(ctx, id);
      }
      const field = str(args.filter_field);
      const value = typeof args.filter_value === 'string' ? args.filter_value : undefined;
      if ((field === undefined) !== (value === undefined))
        throw new ToolRefusal('Give filter_field and filter_value together.');
      return listPage(ctx, {
        tool: 'list_resource',
        resource,
        clientId: resource === 'clients' ? undefined : id,
        limit: args.limit,
        cursor: args.cursor,
        filter: field && value !== undefined ? { field, value } : undefined,
        order: str(args.order),
        direction: args.direction === 'asc' || args.direction === 'desc' ? args.direction : undefined,
      });
    }),
  );
}
