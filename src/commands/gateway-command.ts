import type { AllMiddlewareArgs, SlackCommandMiddlewareArgs } from '@slack/bolt';
import type { ActionEntry, Catalogue, Token } from '../actions/index.js';
import type { ChannelBinding } from '../bindings/index.js';
import type { AppLogger } from '../logger.js';
import { closestName } from '../reads/index.js';
import { notAdminError, notBoundError, UserError, UserErrorCode } from '../requests/index.js';
import type { BotServices } from '../services.js';
import { describeError } from '../slack/describe-error.js';
import { slackReplyTarget } from '../slack/reply-target.js';
import { slackLogContext } from '../slack/request-context.js';
import { ephemeralBody, jsonBytes, postToResponseUrl } from '../slack/response-url.js';
import { claimOnce, claimOnceReading } from '../store/index.js';
import type { SlackMessage } from '../views/blocks.js';
import { buildIgnoredWords } from '../views/error-message.js';
import type { CommandContext, CommandSpec } from './command-context.js';
import { splitCommand } from './tokenizer.js';

type CommandArgs = SlackCommandMiddlewareArgs & AllMiddlewareArgs;
type SlashCommand = CommandArgs['command'];
type Words = ReturnType<typeof splitCommand>;
/** A command's words, or why they could not be read (an unterminated quote): tokenized once, on the ack's turn. */
type Split = { words: Words } | { error: unknown };

function split(text: string): Split {
  try {
    return { words: splitCommand(text) };
  } catch (error) {
    return { error };
  }
}

/** How long a command's trigger_id stays claimed: ten minutes, far beyond any redelivery. */
const CLAIM_SEC = 600;
/** The key of every command that reads nothing from the gateway, in `services.answers` (one lane; no command word is empty). */
export const LOCAL_LANE = '';
/** What a person is told when the answer queue is full: the command was not run (the bench counts these). */
export const BUSY_TEXT = ':hourglass: I am very busy right now. Try again in a minute.';
const BUSY_BODY = jsonBytes({ response_type: 'ephemeral', text: BUSY_TEXT });

export interface CommandRegistry {
  commands: CommandSpec[];
  /** Runs an action command; the catalogue decides which words are actions. */
  runAction(ctx: CommandContext, entry: ActionEntry): Promise<void>;
}

type FoundAction = { entry: ActionEntry; rest: Token[] };

/** `backlinks refresh` is an action while `backlinks` alone is a read: two-word action commands win. */
function findTwoWordAction(catalogue: Catalogue, name: string, args: Token[]): FoundAction | undefined {
  const [next, ...rest] = args;
  if (next?.kind !== 'word') return undefined;
  const entry = catalogue.byCommand(`${name} ${next.value.toLowerCase()}`);
  return entry ? { entry, rest } : undefined;
}

function findAction(catalogue: Catalogue, name: string, args: Token[]): FoundAction | undefined {
  const entry = catalogue.byCommand(name);
  return entry ? { entry, rest: args } : undefined;
}

/** `run` with no action, or one the gateway does not list: say which actions there are, not "no `run` command". */
function runWithoutAction(catalogue: Catalogue, args: Token[]): UserError {
  const actions = catalogue
    .entries()
    .filter((e) => e.available)
    .map((e) => e.action);
  const [first] = args;
  const usage = '/gateway run <action> [field=value …]';
  if (first?.kind !== 'word') {
    return new UserError(UserErrorCode.BadArguments, 'Which action? `run` needs an action name.', {
      usage,
      hint: `Actions: ${actions.join(', ')}.`,
    });
  }
  const guess = closestName(first.value, actions);
  return new UserError(UserErrorCode.UnknownCommand, `The gateway has no action \`${first.value}\`.`, {
    usage,
    hint: guess ? `Did you mean \`/gateway run ${guess}\`?` : `Actions: ${actions.join(', ')}.`,
  });
}

/** The command's first word, lower-cased, without tokenizing the rest (this runs on the ack's turn). */
function firstWord(text: string): string {
  const match = /^\s*(\S+)/.exec(text);
  return match?.[1]?.toLowerCase() ?? 'help';
}

/** What only admins may do, as the refusal says it. */
function adminOnlyWhat(spec: CommandSpec): string {
  return typeof spec.adminOnly === 'string' ? spec.adminOnly : `run \`/gateway ${spec.name}\``;
}

/** A command word the bot does not know, with the closest command or action to it. */
function unknownCommand(typed: string, names: string[]): UserError {
  const guess = closestName(typed, names);
  return new UserError(UserErrorCode.UnknownCommand, `There is no \`${typed}\` command.`, {
    hint: guess
      ? `Did you mean \`/gateway ${guess}\`? \`/gateway help\` lists every command.`
      : '`/gateway help` lists every command.',
  });
}

type Table = ReadonlyMap<string, CommandSpec>;

function commandTable(specs: readonly CommandSpec[]): Table {
  const byName = new Map<string, CommandSpec>();
  for (const spec of specs) {
    byName.set(spec.name, spec);
    for (const alias of spec.aliases ?? []) byName.set(alias, spec);
  }
  return byName;
}

/**
 * Which answer slots a command takes, from its words alone (before anything is read): commands that never
 * read the gateway run apart; the others under their command word (`get` with its resource), so one slow
 * resource cannot take every slot.
 */
function laneOf(table: Table, words: Split): string {
  // An unterminated quote: the answer is an error message, which reads nothing.
  if (!('words' in words)) return LOCAL_LANE;
  const { command, args } = words.words;
  const name = command ?? 'help';
  if (table.get(name)?.local) return LOCAL_LANE;
  const [first] = args;
  return name === 'get' && first?.kind === 'word' ? `get ${first.value.toLowerCase()}` : name;
}

/**
 * The one `/gateway` listener: ack at once (Slack allows 3 s), then the answer in its lane (`answerCommand`),
 * or the person told the bot is busy when the lanes are full.
 */
export function gatewayCommand(services: BotServices, registry: CommandRegistry) {
  const table = commandTable(registry.commands);
  const router: Router = { table, registry };
  return async function handleGatewayCommand({ command, ack, logger, context }: CommandArgs): Promise<void> {
    await ack();
    const text = command.text ?? '';
    const words = split(text);
    const lane = laneOf(table, words);
    const task = () =>
      answerCommand(services, router, { command, logger, context }, words, lane !== LOCAL_LANE);
    // A word that is no built-in command may be an action whose form must open within 3 s: ahead of the rest.
    const first = !table.has(firstWord(text));
    const refuse = () => {
      services.metrics.command('busy', 'refused');
      postToResponseUrl(command.response_url, BUSY_BODY).catch((error: unknown) =>
        logger.error('could not say the bot is busy', error),
      );
    };
    const queued =
      lane === LOCAL_LANE
        ? services.answers.offer(LOCAL_LANE, task, { first, refuse })
        : services.gatewayAnswers.offer(lane, task, { first, refuse });
    // Not on the ack's turn: under overload the acks still to come must not wait behind this post.
    if (!queued) setImmediate(refuse);
  };
}

interface Router {
  table: Table;
  registry: CommandRegistry;
}

type Answering = Pick<CommandArgs, 'command' | 'logger' | 'context'>;

/**
 * A command's answer: claimed once (Slack redelivers slow requests; the trigger_id is the dedupe key), the person
 * checked (guests and other workspaces' people are refused before any command, `help` included), then routed.
 * Every failure becomes an ephemeral message that says what to do.
 */
async function answerCommand(
  services: BotServices,
  router: Router,
  { command, logger, context }: Answering,
  words: Split,
  /** The command reads the gateway (its lane says so): its channel's binding is read with its claim. */
  readsBinding: boolean,
): Promise<void> {
  const started = Date.now();
  // The command's logger is made when something is logged: on the happy path nothing is.
  let made: AppLogger | undefined;
  const log = (): AppLogger => {
    made ??= services.logger.child({ ...slackLogContext(command, context), command: 'gateway' });
    return made;
  };
  const reply = (message: SlackMessage) => postToResponseUrl(command.response_url, ephemeralBody(message));
  // A typed word is not a metric label: only a command or action the bot knows names a series.
  let known = 'unknown';
  try {
    const claim = await claimCommand(services, command, readsBinding);
    if (!claim.fresh) {
      log().info('duplicate delivery of a command ignored');
      return;
    }
    await services.access.requirePerson(command.user_id);
    if (!('words' in words)) throw words.error;
    const ctx = commandContext(services, command, { words: words.words, log, reply, read: claim.read });
    const found = await route(router, ctx);
    known = found.known;
    await found.run();
    services.metrics.command(known, 'ok');
  } catch (error) {
    services.metrics.command(known, 'error');
    try {
      await reply(describeError(error, log()));
    } catch (replyError) {
      logger.error('could not tell the user about an error', replyError);
    }
  } finally {
    services.metrics.commandSeconds.observe((Date.now() - started) / 1_000);
  }
}

/** The channel's binding as the claim's round trip read it; absent when the command reads no binding. */
type BindingRead = { binding: ChannelBinding | undefined } | undefined;

/** Claims the command once; a command that reads the gateway reads its channel's binding in the same round trip. */
async function claimCommand(
  services: BotServices,
  command: SlashCommand,
  readsBinding: boolean,
): Promise<{ fresh: boolean; read: BindingRead }> {
  const claimKey = `cmd:${command.trigger_id}`;
  const { prefix } = services.config.redis;
  if (!readsBinding)
    return { fresh: await claimOnce(services.redis, prefix, claimKey, CLAIM_SEC), read: undefined };
  // One round trip for both: a read answers in one fewer, so its answer slot is held that much less.
  const bindingKey = services.bindings.key(command.channel_id);
  const read = await claimOnceReading(services.redis, prefix, claimKey, CLAIM_SEC, bindingKey);
  return {
    fresh: read.claimed,
    read: { binding: services.bindings.fromHash(command.channel_id, read.hash) },
  };
}

/** What a command sees of its request: who, where, its words, and the ways to answer. */
function commandContext(
  services: BotServices,
  command: SlashCommand,
  parts: { words: Words; log: () => AppLogger; reply: CommandContext['reply']; read: BindingRead },
): CommandContext {
  const { words, log, read } = parts;
  const { user_id: user, channel_id: channel } = command;
  return {
    name: words.command ?? 'help',
    args: words.args,
    user,
    channel,
    triggerId: command.trigger_id,
    services,
    get logger() {
      return log();
    },
    reply: parts.reply,
    post: (message) => services.outbound.post(slackReplyTarget(channel), message),
    isAdmin: () => services.access.isAdmin(user),
    binding: async () => {
      const binding = read ? read.binding : await services.bindings.get(channel);
      // An admin who asks is told to bind the channel rather than to ask an admin.
      if (!binding) throw notBoundError(services.access.admins(), user);
      return binding;
    },
  };
}

/** The command its words name, as a metric label and the run: a built-in command, else an action. */
async function route(router: Router, ctx: CommandContext): Promise<{ known: string; run(): Promise<void> }> {
  const { table, registry } = router;
  const { name, args, services } = ctx;
  // A two-word action (`backlinks refresh`) wins over the read of the same first word.
  const twoWord =
    args[0]?.kind === 'word' ? findTwoWordAction(await services.catalogue(), name, args) : undefined;
  const spec = twoWord ? undefined : table.get(name);
  if (spec) {
    return {
      known: spec.name,
      async run() {
        if (spec.adminOnly && !ctx.isAdmin())
          throw notAdminError(adminOnlyWhat(spec), services.access.admins());
        await spec.run(ctx);
        if (spec.takesNoArguments && args.length > 0) await ctx.reply(buildIgnoredWords(spec.name, args));
      },
    };
  }
  const catalogue = await services.catalogue();
  const found = twoWord ?? findAction(catalogue, name, args);
  if (!found) {
    const error =
      name === 'run'
        ? runWithoutAction(catalogue, args)
        : unknownCommand(name, [
            ...table.keys(),
            ...catalogue.entries().map((e) => e.command.split(' ')[0] ?? ''),
          ]);
    return { known: name === 'run' ? 'run' : 'unknown', run: () => Promise.reject(error) };
  }
  const { entry, rest } = found;
  return {
    known: entry.command,
    run: () => registry.runAction({ ...ctx, name: entry.command, args: rest }, entry),
  };
}
