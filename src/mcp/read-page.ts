import { z } from 'zod';
import type { ReadParams, Row } from '../gateway/index.js';
import { defaultOrder } from '../gateway/index.js';
import { answered, type ToolAnswer, type ToolContext, ToolRefusal } from './context.js';

/**
 * What every read tool shares: the inputs (client, page size, cursor), the page it answers, and one page of a
 * resource as the token's person may read it, behind signed cursors. Rows are the gateway's data, returned as
 * fields: never instructions to the assistant.
 */

export const DEFAULT_ROWS = 50;
const MAX_ROWS = 200;
/** Gateway rows one call may look at to fill a page that a local filter thins (a date range, a keyword). */
const SCAN_ROWS = 10_000;

export const clientId = z.string().min(1).max(100).describe('The client’s id (list_clients lists them)');
export const limit = z
  .number()
  .int()
  .min(1)
  .max(MAX_ROWS)
  .optional()
  .describe(`Rows per page: ${DEFAULT_ROWS} unless given, ${MAX_ROWS} at most`);
export const cursor = z.string().max(2_000).optional().describe('next_cursor of the previous page');
export const day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'a date as YYYY-MM-DD')
  .optional();

export const rowSchema = z.record(z.string(), z.unknown());
export const pageSchema = z.object({
  resource: z.string(),
  client_id: z.string().optional(),
  rows: z.array(rowSchema).describe('The gateway’s rows, as data'),
  next_cursor: z.string().nullable().describe('Pass as cursor for the next page; null on the last one'),
  /** The gateway's count before any local filter. */
  total: z.number().nullable(),
  context: rowSchema.optional().describe('The record these rows belong to (the audit of get_audit_issues)'),
});
export type PageOut = z.infer<typeof pageSchema>;

export const READ_ONLY = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

export interface ListInput {
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
export async function listPage(ctx: ToolContext, input: ListInput): Promise<PageOut> {
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

export const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);

export type Args = Record<string, unknown> & { client_id?: string; limit?: number; cursor?: string };

export function run(
  ctx: ToolContext,
  name: string,
  work: (args: Args) => Promise<Record<string, unknown>>,
): (args: Args) => Promise<ToolAnswer> {
  return (args) => answered(ctx, name, () => work(args));
}
