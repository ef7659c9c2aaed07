import type { Catalogue } from '../actions/index.js';
import { FILTER_FORMS } from '../digests/index.js';
import { SPEC_RESOURCES } from '../gateway/index.js';
import { closestName } from '../reads/index.js';
import { UserError, UserErrorCode } from '../requests/index.js';
import type { SlackMessage } from '../views/blocks.js';
import { buildCommandHelp, buildHelp, type HelpDetail, type HelpEntry } from '../views/help.js';
import { actionHelpEntries } from './action-help.js';
import type { CommandContext, CommandSpec } from './command-context.js';

/** HelpEntry usage lines go without the `/gateway ` prefix; the help views add it. */
const toEntry = (spec: CommandSpec): HelpEntry => ({
  name: spec.name,
  usage: spec.usage.replace(/^\/gateway /, ''),
  summary: spec.summary,
  example: spec.example,
  adminOnly: Boolean(spec.adminOnly),
  group: spec.group,
});

/** `run <action>` is the router's, not a command of its own: help lists it among the actions all the same. */
const RUN_ENTRY: HelpEntry = {
  name: 'run',
  usage: 'run <action> [field=value …]',
  summary:
    'Any action the gateway lists, by its gateway name, new ones included; a form opens for missing fields',
  example: '/gateway run generate_keywords seed="water heater"',
  group: 'Actions',
};

/** Help never waits on a slow gateway longer than this for its list of resources; the spec's list stands in. */
const RESOURCES_WAIT_MS = 1_500;

/** The gateway's resources (a discovery answer, usually cached), or the spec's own once a slow gateway is waited for. */
async function resourceNames(ctx: CommandContext): Promise<readonly string[]> {
  const signal = AbortSignal.timeout(RESOURCES_WAIT_MS);
  try {
    return (await ctx.services.gateway.discover({ signal })).resources;
  } catch (error) {
    if (!signal.aborted) throw error;
    return SPEC_RESOURCES;
  }
}

/** What `get` can read and what `run` can run, from the gateway's own lists (a discovery answer). */
async function helpDetails(ctx: CommandContext, name: string, catalogue: Catalogue): Promise<HelpDetail[]> {
  if (name === 'get') {
    const resources = await resourceNames(ctx);
    return [{ label: 'Resources', names: [...resources].sort() }];
  }
  if (name === 'digest') {
    return [
      { label: 'Reviews filters', names: FILTER_FORMS.reviews },
      { label: 'Rankings filters', names: FILTER_FORMS.rankings },
      { label: 'Time zone (else DIGEST_TZ)', names: ['tz=Area/City'] },
      {
        label: 'Also',
        names: ['digest now reviews|rankings', 'digest status', 'digest reviews|rankings off'],
      },
    ];
  }
  if (name === 'run') {
    const actions = catalogue.entries().map((e) => e.action);
    return [{ label: 'Actions', names: [...new Set(actions)].sort() }];
  }
  return [];
}

/**
 * The help's entries and its full message, kept per catalogue: they change only with a new discovery answer,
 * with the actions members may run, and (the message) with whether an admin asks.
 */
function helpCache(entriesOf: (catalogue: Catalogue, allowed: readonly string[]) => HelpEntry[]) {
  const built = new WeakMap<Catalogue, Map<boolean, SlackMessage>>();
  const listed = new WeakMap<Catalogue, { allowed: readonly string[]; entries: HelpEntry[] }>();
  return {
    entries(catalogue: Catalogue, allowed: readonly string[]): HelpEntry[] {
      const kept = listed.get(catalogue);
      if (kept?.allowed === allowed) return kept.entries;
      const entries = entriesOf(catalogue, allowed);
      listed.set(catalogue, { allowed, entries });
      return entries;
    },
    full(catalogue: Catalogue, entries: HelpEntry[], isAdmin: boolean): SlackMessage {
      const byRole = built.get(catalogue) ?? new Map<boolean, SlackMessage>();
      built.set(catalogue, byRole);
      const cached = byRole.get(isAdmin) ?? buildHelp(entries, { isAdmin });
      byRole.set(isAdmin, cached);
      return cached;
    },
  };
}

/** The entry `help <wanted>` names, or the UserError with the closest one. */
function wantedEntry(entries: HelpEntry[], catalogue: Catalogue, wanted: string): HelpEntry {
  // `help digest now` is the help of `digest`: a command's own sub-words lead to the command.
  const first = wanted.split(' ')[0];
  const entry =
    entries.find((e) => e.name === wanted) ??
    entries.find((e) => e.name.split(' ')[0] === wanted) ??
    entries.find((e) => e.name === first) ??
    // A gateway action's name leads to its command's help (`help generate_blog` → `blog`).
    entries.find((e) => e.name === catalogue.byAction(wanted)?.command);
  if (entry) return entry;
  const guess = closestName(
    wanted,
    entries.map((e) => e.name),
  );
  throw new UserError(UserErrorCode.UnknownCommand, `There is no \`${wanted}\` command.`, {
    hint: guess
      ? `Did you mean \`/gateway help ${guess}\`? \`/gateway help\` lists every command.`
      : '`/gateway help` lists every command.',
  });
}

/** `help [command]`: one line per command with an example, or one command in detail. */
export function helpCommand(commands: () => CommandSpec[]): CommandSpec {
  const cache = helpCache((catalogue, allowed) => [
    toEntry(self),
    ...commands().map(toEntry),
    ...actionHelpEntries(catalogue, allowed),
    RUN_ENTRY,
  ]);
  const self: CommandSpec = {
    name: 'help',
    usage: '/gateway help [command]',
    summary: 'Usage of every command, or one in detail',
    example: '/gateway help audit',
    group: 'Setup',
    local: true,
    async run(ctx) {
      const catalogue = await ctx.services.catalogue();
      const entries = cache.entries(catalogue, ctx.services.config.allowedActions);
      const wanted = ctx.args
        .filter((t) => t.kind === 'word')
        .map((t) => t.value.toLowerCase())
        .join(' ');
      if (!wanted) {
        await ctx.reply(cache.full(catalogue, entries, ctx.isAdmin()));
        return;
      }
      const entry = wantedEntry(entries, catalogue, wanted);
      await ctx.reply(buildCommandHelp(entry, await helpDetails(ctx, entry.name, catalogue)));
    },
  };
  return self;
}
