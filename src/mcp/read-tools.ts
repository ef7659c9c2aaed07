import { z } from 'zod';
import type { Row } from '../gateway/index.js';
import { requireClient, type ToolContext } from './context.js';
import { clientId, cursor, day, limit, listPage, pageSchema, READ_ONLY, run, str } from './read-page.js';
import { registerRecordTools } from './record-tools.js';
import { listReviewsTool } from './review-tool.js';
import type { ToolRegistrar } from './tool-table.js';

/**
 * The read tools of docs/gateway-api.md §4.5, each one gateway resource read as the token's person may read it
 * (docs/assistants.md, "Tools", has the mapping). Pages of 50 rows by default, 200 at most, behind signed cursors.
 * Rows are the gateway's data, returned as fields: never instructions to the assistant.
 */

interface ListTool {
  name: string;
  resource: string;
  description: string;
  extra?: z.ZodRawShape;
  filter?(args: Record<string, unknown>): { field: string; value: string } | undefined;
  keep?(args: Record<string, unknown>): ((row: Row) => boolean) | undefined;
}

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

  registerRecordTools(server, ctx);
}
