import type { AllMiddlewareArgs, SlackCommandMiddlewareArgs } from '@slack/bolt';
import type { ActionEntry, Catalogue, Token } from '../actions/index.js';
import type { ChannelBinding } from '../bindings/index.js';
import type { AppLogger } from '../logger.js';
import { closestName } from '../reads/index.js';
import { notAdminError, UserError, UserErrorCode } from '../requests/index.js';
import type { BotServices } from '../services.js';
import { ChatPoster } from '../slack/chat-post.js';
import { describeError } from '../slack/describe-error.js';
import { slackLogContext } from '../slack/request-context.js';
import { ephemeralBody, jsonBytes, postToResponseUrl } from '../slack/response-url.js';
import { claimOnce, claimOnceReading } from '../store/index.js';
import type { SlackMessage } from '../views/blocks.js';
import { buildIgnoredWords } from '../views/error-message.js';
import type { CommandContext, CommandSpec } from './command-context.js';
import { boundOrRefused, requireBinding } from './command-context.js';
import { splitCommand } from './tokenizer.js';

type CommandArgs = SlackCommandMiddlewareArgs & AllMiddlewareArgs;
/** A command's words, or why they could not be read (an unterminated quote): tokenized once, on the ack's turn. */
type Split = { words: ReturnType<typeof splitCommand> } | { error: unknown };

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

/**
 * The one `/gateway` listener: ack at once (Slack allows 3 s), claim the request once (Slack redelivers slow
 * requests; the trigger_id is the dedupe key), then route to a command (refusing an admins-only one to anyone else). Every failure becomes an ephemeral
 * message that says what to do.
 */
export function gatewayCommand(services: BotServices, registry: CommandRegistry) {
  const byName = new Map<string, CommandSpec>();
  for (const spec of registry.commands) {
    byName.set(spec.name, spec);
    for (const alias of spec.aliases ?? []) byName.set(alias, spec);
  }
  // A command's channel post goes out as one JSON POST, with WebClient's retries and errors (slack/chat-post.ts).
  const poster = new ChatPoster({
    apiUrl: services.config.slack.apiUrl ?? 'https://slack.com/api/',
    token: services.config.slack.botToken ?? '',
  });

  /**
   * Which answer slots a command takes, from its words alone (before anything is read): commands that never
   * read the gateway run apart; the others under their command word (`get` with its resource), so one slow
   * resource cannot take every slot.
   */
  function laneOf(words: Split): string {
    // An unterminated quote: the answer is an error message, which reads nothing.
    if (!('words' in words)) return LOCAL_LANE;
    const { command, args } = words.words;
    const name = command ?? 'help';
    if (byName.get(name)?.local) return LOCAL_LANE;
    const [first] = args;
    return name === 'get' && first?.kind === 'word' ? `get ${first.value.toLowerCase()}` : name;
  }

  return async function handleGatewayCommand({ command, ack, logger, context }: CommandArgs): Promise<void> {
    await ack();
    const text = command.text ?? '';
    const words = split(text);
    const lane = laneOf(words);
    const task = () => answer({ command, logger, context }, words, lane !== LOCAL_LANE);
    // A word that is no built-in command may be an action whose form must open within 3 s: ahead of the rest.
    const first = !byName.has(firstWord(text));
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

  async function answer(
    { command, logger, context }: Pick<CommandArgs, 'command' | 'logger' | 'context'>,
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
    const reply = async (message: SlackMessage) => {
      await postToResponseUrl(command.response_url, ephemeralBody(message));
    };
    let name = 'unknown';
    // A typed word is not a metric label: only a command or action the bot knows names a series.
    let known = 'unknown';
    try {
      const claimKey = `cmd:${command.trigger_id}`;
      const { prefix } = services.config.redis;
      // One round trip for both: a read answers in one fewer, so its answer slot is held that much less.
      let prefetched: { binding: ChannelBinding | undefined } | undefined;
      let fresh: boolean;
      if (readsBinding) {
        const bindingKey = services.bindings.key(command.channel_id);
        const read = await claimOnceReading(services.redis, prefix, claimKey, CLAIM_SEC, bindingKey);
        fresh = read.claimed;
        prefetched = { binding: services.bindings.fromHash(command.channel_id, read.hash) };
      } else {
        fresh = await claimOnce(services.redis, prefix, claimKey, CLAIM_SEC);
      }
      if (!fresh) {
        log().info('duplicate delivery of a command ignored');
        return;
      }
      // Guests and other workspaces' people are refused before any command, `help` included.
      await services.access.requirePerson(command.user_id);
      if (!('words' in words)) throw words.error;
      const { command: word, args } = words.words;
      name = word ?? 'help';
      const ctx: CommandContext = {
        name,
        args,
        user: command.user_id,
        channel: command.channel_id,
        triggerId: command.trigger_id,
        services,
        get logger() {
          return log();
        },
        reply,
        post: async (message) => {
          const { thread_ts: thread, ...shown } = message;
          const result = await poster.postMessage(command.channel_id, thread ? shown : message, thread);
          return result.ts;
        },
        isAdmin: () => services.access.isAdmin(command.user_id),
        binding: async () =>
          prefetched
            ? boundOrRefused(services, prefetched.binding, command.user_id)
            : requireBinding(services, command.channel_id, command.user_id),
      };
      // A two-word action (`backlinks refresh`) wins over the read of the same first word.
      const twoWord =
        args[0]?.kind === 'word' ? findTwoWordAction(await services.catalogue(), name, args) : undefined;
      const spec = twoWord ? undefined : byName.get(name);
      if (spec) {
        known = spec.name;
        if (spec.adminOnly && !ctx.isAdmin())
          throw notAdminError(adminOnlyWhat(spec), services.access.admins());
        await spec.run(ctx);
        if (spec.takesNoArguments && args.length > 0) await reply(buildIgnoredWords(spec.name, args));
      } else {
        const catalogue = await services.catalogue();
        const found = twoWord ?? findAction(catalogue, name, args);
        if (!found && name === 'run') {
          known = 'run';
          throw runWithoutAction(catalogue, args);
        }
        if (!found) {
          const typed = name;
          const names = [...byName.keys(), ...catalogue.entries().map((e) => e.command.split(' ')[0] ?? '')];
          const guess = closestName(typed, names);
          throw new UserError(UserErrorCode.UnknownCommand, `There is no \`${typed}\` command.`, {
            hint: guess
              ? `Did you mean \`/gateway ${guess}\`? \`/gateway help\` lists every command.`
              : '`/gateway help` lists every command.',
          });
        }
        name = found.entry.command;
        known = name;
        await registry.runAction({ ...ctx, name, args: found.rest }, found.entry);
      }
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
}
