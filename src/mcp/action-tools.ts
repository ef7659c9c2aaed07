import { z } from 'zod';
import { ask, referenceSchema } from './action-ask.js';
import { ACTION_TOOLS, type Args, common } from './action-tool-specs.js';
import { answered, requireClient, type ToolContext, ToolRefusal } from './context.js';
import { describeJob, jobSchema } from './job-tools.js';
import type { ToolRegistrar } from './tool-table.js';

/**
 * The action tools of docs/gateway-api.md §4.5: each asks for one gateway action through the request layer,
 * exactly as `/gateway` does (access, rate limit, duplicate guard, queue), and answers at once with a job
 * reference. Deploys and email sends post the usual approval card and wait for an approver in Slack: no tool,
 * argument or answer here can approve.
 */

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
  registerRunAction(server, ctx);
  registerGetJob(server, ctx);
}

function registerRunAction(server: ToolRegistrar, ctx: ToolContext): void {
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
      return ask(ctx, entry, args, { fields });
    }),
  );
}

function registerGetJob(server: ToolRegistrar, ctx: ToolContext): void {
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
