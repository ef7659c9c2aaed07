import type {
  BlockButtonAction,
  Context,
  Middleware,
  SlackActionMiddlewareArgs,
  SlackViewMiddlewareArgs,
  ViewSubmitAction,
} from '@slack/bolt';
import { AccessError, AccessErrorCode } from '../access/index.js';
import type { AppLogger } from '../logger.js';
import type { BotServices } from '../services.js';
import type { SlackMessage } from '../views/blocks.js';
import { describeError } from './describe-error.js';
import { directMessage } from './person-answers.js';
import { slackLogContext } from './request-context.js';

/**
 * The steps every click and every form submission shares, once, on every surface that has them (the channel's
 * messages and forms, the Home tab), as Bolt listener middleware in front of each listener: ack a click at
 * once (Slack allows 3 s), give the listener a log with the request's ids and a way to answer, refuse guests
 * and other workspaces' people, and turn any failure into a message that says what to do next (never a stack
 * trace).
 */

export type ButtonListener = Middleware<SlackActionMiddlewareArgs<BlockButtonAction>>;
type ClickBody = SlackActionMiddlewareArgs<BlockButtonAction>['body'];
export type ViewListener = Middleware<SlackViewMiddlewareArgs<ViewSubmitAction>>;

/** What the pipeline hands a listener, in Bolt's `context`. */
export interface Interaction {
  log: AppLogger;
  /** An ephemeral answer to the person who clicked (a new message; the clicked one stays). */
  reply(message: SlackMessage): Promise<void>;
  /** The message clicked on, replaced (a click's response_url; a form has none, so it answers as `reply`). */
  replace(message: SlackMessage): Promise<void>;
}

const INTERACTION = 'interaction';

/** The listener's part of the pipeline: its log and reply. */
export function interactionOf(context: Context): Interaction {
  const interaction = context[INTERACTION] as Interaction | undefined;
  if (!interaction) throw new Error('the listener runs outside the interaction pipeline');
  return interaction;
}

/**
 * How a surface answers a click. The channel's messages answer by the click's response_url (the default); the
 * Home tab shows the answer at its top and publishes the tab again after every click (`after`).
 */
interface ClickAnswers {
  answers(body: ClickBody): Pick<Interaction, 'reply' | 'replace'>;
  /** Runs after the listener, whether it answered, refused or failed. */
  after?(body: ClickBody): Promise<void>;
}

export interface ButtonPipelineOptions {
  /** The buttons a person of another workspace may press, as a client approver; everyone else must be ours. */
  signoffButtons?: ReadonlySet<string>;
  answers?: ClickAnswers;
}

/** A submission must be acked within 3 s; a lookup slower than this refuses rather than lose the ack. */
const VIEW_CHECK_MS = 1_000;

/** Every button: ack → log and reply, errors answered → the person check → the listener. */
export function buttonPipeline(services: BotServices, options: ButtonPipelineOptions = {}): ButtonListener[] {
  const byResponseUrl: ClickAnswers = {
    answers: (body) => ({
      reply: (message) => services.outbound.toResponseUrl(body.response_url, message, 'ephemeral'),
      replace: (message) => services.outbound.toResponseUrl(body.response_url, message, 'replace'),
    }),
  };
  const answering = options.answers ?? byResponseUrl;
  const ackAtOnce: ButtonListener = async ({ ack, next }) => {
    await ack();
    await next();
  };
  const answerErrors: ButtonListener = async ({ body, action, context, next }) => {
    const log = services.logger.child({ ...slackLogContext(body, context), action: action.action_id });
    const { reply, replace } = answering.answers(body);
    context[INTERACTION] = { log, reply, replace } satisfies Interaction;
    try {
      await next();
    } catch (error) {
      await reply(describeError(error, log)).catch((e: unknown) => log.error('could not answer a click', e));
    }
    await answering.after?.(body);
  };
  const requirePerson: ButtonListener = async ({ body, action, next }) => {
    // A client's named approver (another workspace) may press these; the approval's own rule decides the rest.
    if (options.signoffButtons?.has(action.action_id))
      await services.access.requireSignoffPerson(body.user.id, body.user.team_id);
    else await services.access.requirePerson(body.user.id, body.user.team_id);
    await next();
  };
  return [ackAtOnce, answerErrors, requirePerson];
}

/**
 * Every form submission: the person is checked before the listener (which acks itself, with field errors when
 * there are any). The form opened from a command that checked the same person a moment ago, so the answer is
 * usually cached. A refusal closes the form and says why in the bot's direct message.
 */
export function viewPipeline(services: BotServices): ViewListener[] {
  const requirePerson: ViewListener = async ({ ack, body, view, context, next }) => {
    const { user } = body;
    const log = services.logger.child({ ...slackLogContext(body, context), view: view.id });
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        services.access.requirePerson(user.id, user.team_id),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new AccessError(AccessErrorCode.Unchecked)), VIEW_CHECK_MS);
        }),
      ]);
    } catch (error) {
      await ack();
      await directMessage(services.outbound, user.id, describeError(error, log)).catch((e: unknown) =>
        log.error('could not refuse a submission', e),
      );
      return;
    } finally {
      clearTimeout(timer);
    }
    const reply = (message: SlackMessage) => directMessage(services.outbound, user.id, message);
    context[INTERACTION] = { log, reply, replace: reply } satisfies Interaction;
    await next();
  };
  return [requirePerson];
}

/** The channel a click came from: a message's channel, or the container's for a click in an ephemeral. */
export const channelOf = (body: { channel?: { id: string }; container?: { channel_id?: string } }) =>
  body.channel?.id ?? body.container?.channel_id;
