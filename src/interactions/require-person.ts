import type {
  BlockButtonAction,
  Middleware,
  SlackActionMiddlewareArgs,
  SlackViewMiddlewareArgs,
  ViewSubmitAction,
} from '@slack/bolt';
import { AccessError, AccessErrorCode } from '../access/access-error.js';
import type { BotServices } from '../services.js';
import { describeError } from '../slack/describe-error.js';

type ButtonListener = Middleware<SlackActionMiddlewareArgs<BlockButtonAction>>;
type ViewListener = Middleware<SlackViewMiddlewareArgs<ViewSubmitAction>>;

/** A submission must be acked within 3 s; a lookup slower than this refuses rather than lose the ack. */
const VIEW_CHECK_MS = 1_000;

/**
 * Every click goes through here first (interactions/index.ts wraps each listener): acked at once, then the
 * person is checked (guests and other workspaces' people are refused ephemerally) and only then the listener
 * runs, with the ack already spent.
 */
export function buttonForPeople(services: BotServices, listener: ButtonListener): ButtonListener {
  return async function personButton(args) {
    await args.ack();
    const { user } = args.body;
    try {
      await services.access.requirePerson(user.id, user.team_id);
    } catch (error) {
      const log = services.logger.child({ action: args.action.action_id, user: user.id });
      await args
        .respond({ response_type: 'ephemeral', replace_original: false, ...describeError(error, log) })
        .catch((e: unknown) => log.error('could not refuse a click', e));
      return;
    }
    await listener({ ...args, ack: (async () => {}) as typeof args.ack });
  };
}

/**
 * Every modal submission: the person is checked before the listener (which may still answer with field errors
 * in its ack). The modal opened from a command that checked the same person a moment ago, so the answer is
 * usually cached. A refusal closes the modal and says why in the bot's direct message.
 */
export function viewForPeople(services: BotServices, listener: ViewListener): ViewListener {
  return async function personView(args) {
    const { user } = args.body;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        services.access.requirePerson(user.id, user.team_id),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new AccessError(AccessErrorCode.Unchecked)), VIEW_CHECK_MS);
        }),
      ]);
    } catch (error) {
      const log = services.logger.child({ view: args.view.id, user: user.id });
      await args.ack();
      await args.client.chat
        .postMessage({ channel: user.id, ...describeError(error, log) })
        .catch((e: unknown) => log.error('could not refuse a submission', e));
      return;
    } finally {
      clearTimeout(timer);
    }
    await listener(args);
  };
}
