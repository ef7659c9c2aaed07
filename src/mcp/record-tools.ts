import { z } from 'zod';
import type { Row } from '../gateway/index.js';
import { FILTER_FIELDS, ORDER_FIELDS } from '../gateway/index.js';
import { noSuchClient, requireClient, type ToolContext, ToolRefusal } from './context.js';
import {
  clientId,
  cursor,
  DEFAULT_ROWS,
  limit,
  listPage,
  pageSchema,
  READ_ONLY,
  rowSchema,
  run,
  str,
} from './read-page.js';
import type { ToolRegistrar } from './tool-table.js';

/**
 * The read tools of docs/gateway-api.md §4.5 that are not one resource of one client: the clients this token
 * reaches, one client whole, an audit with its tasks, and any resource discovery lists.
 */

function listClients(server: ToolRegistrar, ctx: ToolContext): void {
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
}

function getClient(server: ToolRegistrar, ctx: ToolContext): void {
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
}

function getAuditIssues(server: ToolRegistrar, ctx: ToolContext): void {
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
}

function listResource(server: ToolRegistrar, ctx: ToolContext): void {
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

/** Registers the record tools on one server. */
export function registerRecordTools(server: ToolRegistrar, ctx: ToolContext): void {
  listClients(server, ctx);
  getClient(server, ctx);
  getAuditIssues(server, ctx);
  listResource(server, ctx);
}
