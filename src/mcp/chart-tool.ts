import { z } from 'zod';
import type { ChartFacts } from '../charts/index.js';
import { MAX_CHART_KEYWORDS } from '../charts/index.js';
import { drawChart } from '../reads/index.js';
import { answered, requireClient, type ToolContext } from './context.js';
import type { ToolRegistrar } from './tool-table.js';

/**
 * `get_chart`: the chart a person gets with `/gateway chart` in Slack, for an assistant: the PNG as image
 * content and the numbers behind it as structured content. The same reach (the client must be one the token's
 * person reaches) and read access as the other read tools; no cursor, since a chart is bounded (ten keywords of
 * at most a year of days, or three years of months).
 */

const day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'a date as YYYY-MM-DD')
  .optional();

const point = z.object({ date: z.string(), position: z.number().nullable() });
const chartSchema = z.object({
  kind: z.enum(['rankings', 'reviews']),
  client_id: z.string(),
  from: z.string(),
  to: z.string(),
  title: z.string(),
  alt_text: z.string().describe('The chart’s main figures in words'),
  keywords: z
    .array(
      z.object({
        keyword: z.string(),
        first: z.number().nullable(),
        last: z.number().nullable(),
        points: z.array(point).describe('Oldest first; position null where the keyword was not ranked'),
      }),
    )
    .optional(),
  not_tracked: z.array(z.string()).optional().describe('Keywords asked for that the client does not track'),
  months: z
    .array(
      z.object({
        month: z.string(),
        counts: z.array(z.number()).describe('Reviews of 1 to 5 stars'),
        average: z.number().nullable(),
      }),
    )
    .optional(),
  total: z.number().optional(),
  average: z.number().nullable().optional(),
  read_from: z.string().optional().describe('The read did not reach `from`: figures start here'),
});

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** The numbers behind a chart, in the tools' snake_case. */
function numbers(facts: ChartFacts): Record<string, unknown> {
  const common = { from: facts.from, to: facts.to, ...(facts.readFrom ? { read_from: facts.readFrom } : {}) };
  if (facts.kind === 'rankings')
    return {
      ...common,
      keywords: facts.keywords,
      ...(facts.missing.length ? { not_tracked: facts.missing } : {}),
    };
  return { ...common, months: facts.months, total: facts.total, average: facts.average };
}

/** A client's name from the roster (an admin's token reaches clients bound to no channel of theirs). */
async function clientName(ctx: ToolContext, clientId: string): Promise<string> {
  const page = await ctx.services.gateway.read('clients', {
    filter: { field: 'id', value: clientId },
    limit: 1,
  });
  const name = page.data[0]?.name;
  return typeof name === 'string' && name ? name : clientId;
}

export function registerChartTool(server: ToolRegistrar, ctx: ToolContext): void {
  server.registerTool(
    'get_chart',
    {
      description:
        'A chart of a client’s data as a PNG image, with the numbers behind it. `rankings`: ranking positions over time of up to 10 keywords (without keywords, the 10 tracked with the most search volume), the last 90 days unless from/to say otherwise. `reviews`: reviews per month stacked by star rating, with the average rating, the last 12 months unless from/to say otherwise.',
      inputSchema: z.object({
        client_id: z.string().min(1).max(100).describe('The client’s id (list_clients lists them)'),
        kind: z.enum(['rankings', 'reviews']),
        keywords: z
          .array(z.string().min(1).max(300))
          .max(MAX_CHART_KEYWORDS)
          .optional()
          .describe('Rankings only: the keywords to draw, as tracked (any case)'),
        from: day.describe('First day, YYYY-MM-DD'),
        to: day.describe('Last day, YYYY-MM-DD'),
      }),
      outputSchema: chartSchema,
      annotations: READ_ONLY,
    },
    async (args) => {
      let png: Buffer | undefined;
      const result = await answered(ctx, 'get_chart', async () => {
        const clientId = String(args.client_id);
        const reach = await requireClient(ctx, clientId);
        const clientLabel =
          reach.channels.get(clientId)?.[0]?.clientLabel ?? (await clientName(ctx, clientId));
        const chart = await drawChart(
          ctx.services,
          ctx.caller.user,
          { clientId, clientLabel },
          {
            kind: args.kind,
            keywords: args.kind === 'rankings' ? (args.keywords ?? []) : [],
            from: args.from,
            to: args.to,
          },
        );
        png = chart.png;
        const { meta } = chart;
        return {
          kind: args.kind,
          client_id: clientId,
          title: meta.title,
          alt_text: meta.altText,
          ...numbers(meta.facts),
        };
      });
      if (result.isError || !png) return result;
      return {
        ...result,
        content: [
          { type: 'image' as const, data: png.toString('base64'), mimeType: 'image/png' },
          ...result.content,
        ],
      };
    },
  );
}
