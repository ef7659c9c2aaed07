import type { ReadQuery } from '../reads/index.js';
import {
  checkResource,
  parseReadQuery,
  type ReadTarget,
  readResourceAnswer,
  readResourcePage,
} from '../reads/index.js';
import { UserError, UserErrorCode } from '../requests/index.js';
import { DEFAULT_PAGE_ROWS } from '../views/resource-page.js';
import type { CommandContext, CommandSpec } from './command-context.js';

const READ_OPTIONS = '[field=value] [order=field] [asc|desc] [limit=N] [offset=N]';

/**
 * Posts a page of `resource` in the channel: reads are shared work that the channel sees. A read that matched
 * nothing is said to the person alone, with what to try.
 */
async function showResource(ctx: CommandContext, target: ReadTarget, usage: string): Promise<void> {
  const { resource } = target;
  const binding = await ctx.binding();
  const query = parseReadQuery(ctx.args, usage, DEFAULT_PAGE_ROWS, target);
  await checkResource(ctx.services, resource);
  const { message, empty } = await readResourceAnswer(ctx.services, ctx.user, binding, resource, query);
  if (empty) await ctx.reply(message);
  else await ctx.post(message);
}

/**
 * The agency's client roster, to the person alone (a channel may be shared with a client, who must not see the
 * others), in a channel bound or not: `/gateway clients` and `/gateway get clients` alike.
 */
export async function replyClientRoster(ctx: CommandContext, query: ReadQuery): Promise<void> {
  const binding = (await ctx.services.bindings.get(ctx.channel)) ?? {
    clientId: '',
    clientLabel: 'this agency',
  };
  await ctx.reply(await readResourcePage(ctx.services, ctx.user, binding, 'clients', query));
}

/** `get clients`: the roster as `/gateway clients` shows it, with the read options. */
async function showClients(ctx: CommandContext, usage: string): Promise<void> {
  const query = parseReadQuery(ctx.args, usage, DEFAULT_PAGE_ROWS, {
    resource: 'clients',
    command: 'get clients',
  });
  await replyClientRoster(ctx, query);
}

const getCommand: CommandSpec = {
  name: 'get',
  usage: `/gateway get <resource> ${READ_OPTIONS}`,
  summary: 'Any readable resource of this channel’s client, paged',
  example: '/gateway get keywords status=paused limit=10',
  group: 'Read',
  async run(ctx) {
    const [first, ...rest] = ctx.args;
    if (first?.kind !== 'word') {
      throw new UserError(UserErrorCode.BadArguments, 'Which resource? `get` needs one.', {
        usage: this.usage,
      });
    }
    const resource = first.value.toLowerCase();
    if (resource === 'clients') {
      await showClients({ ...ctx, args: rest }, this.usage);
      return;
    }
    await showResource({ ...ctx, args: rest }, { resource, command: `get ${resource}` }, this.usage);
  },
};

const SHORTCUTS: Array<[name: string, resource: string, summary: string, example: string]> = [
  [
    'keywords',
    'keywords',
    'Each tracked keyword at its latest position: change, volume, KD, URL (`order=position|volume|kd|change`, `keyword~text`)',
    '/gateway keywords order=change',
  ],
  [
    'rankings',
    'keywords',
    'Rankings: the same view as `keywords`, each keyword at its latest position and its change (`order=change` for the biggest climbs)',
    '/gateway rankings order=change limit=10',
  ],
  ['tasks', 'seo_tasks', 'SEO tasks (`order=priority`)', '/gateway tasks status=pending order=priority'],
  [
    'reviews',
    'reviews',
    'Customer reviews, newest first (`order=rating`)',
    '/gateway reviews sentiment=negative',
  ],
  [
    'backlinks',
    'backlinks',
    'Backlinks (`backlinks refresh` refetches them)',
    '/gateway backlinks order=linking_domains',
  ],
  ['blogs', 'blogs', 'Blog articles, drafts and published', '/gateway blogs published=false'],
  ['citations', 'citations', 'Directory listings', '/gateway citations status=needs_update'],
  ['calls', 'call_tracking_calls', 'Tracked calls', '/gateway calls order=created_at'],
  ['reports', 'seo_reports', 'Audit reports', '/gateway reports limit=5'],
];

/** The shortcuts that show the keywords as rankings (one row a keyword, bot-side sorts and `keyword~text`). */
const RANKINGS_VIEW = new Set(['keywords', 'rankings']);

export const readCommands: CommandSpec[] = [
  getCommand,
  ...SHORTCUTS.map(([name, resource, summary, example]): CommandSpec => {
    // The rankings view also matches by text, bot-side (read-query.ts).
    const usage = `/gateway ${name} ${READ_OPTIONS}${RANKINGS_VIEW.has(name) ? ' [keyword~text]' : ''}`;
    return {
      name,
      usage,
      summary,
      example,
      group: 'Read',
      run: (ctx) =>
        showResource(
          ctx,
          RANKINGS_VIEW.has(name)
            ? { resource, view: 'rankings', command: name, name }
            : { resource, command: name, name },
          usage,
        ),
    };
  }),
];
