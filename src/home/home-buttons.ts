import { type DecideOutcome, decideApprovalById, decisionAnswer, retryJob } from '../approvals/index.js';
import { channelSignoff } from '../bindings/index.js';
import { channelDigests } from '../digests/index.js';
import type { AppLogger } from '../logger.js';
import { notAdminError } from '../requests/index.js';
import type { BotServices } from '../services.js';
import { describeError } from '../slack/describe-error.js';
import { type ButtonListener, buttonPipeline, interactionOf } from '../slack/interaction-pipeline.js';
import type { SlackRoutes } from '../slack/slack-routes.js';
import type { HomeMarks } from '../store/index.js';
import { section } from '../views/blocks.js';
import { buildChannelSettings } from '../views/channel-settings.js';
import {
  HOME_APPROVE_ID,
  HOME_CANCEL_APPROVAL_ID,
  HOME_CANCEL_JOB_ID,
  HOME_CHANNEL_SETTINGS_ID,
  HOME_REJECT_ID,
  HOME_RETRY_JOB_ID,
  HOME_REVOKE_TOKEN_ID,
} from '../views/home.js';
import type { HomePublisher } from './home-publisher.js';

/**
 * The Home tab's buttons: Approve, Reject and Cancel go to the approval use case (approvals/decide.ts), Cancel
 * and Retry of a job to the request layer and the job retry, exactly as the channel's card and job messages
 * do; the tab has no channel, so the approval's or the job's own stands in. They run behind the same pipeline
 * as the channel's buttons (slack/interaction-pipeline.ts); the answer (a refusal, what happened) is shown at
 * the top of the tab, which is published again after every click.
 */

type Click = { user: string; value: string; click: string; triggerId: string; log: AppLogger };
type Answer = { text: string; blocks?: ReturnType<typeof describeError>['blocks'] } | undefined;
type HomeButton = (services: BotServices, click: Click) => Promise<Answer>;

function decided(outcome: DecideOutcome, log: AppLogger, done: string): Answer {
  return decisionAnswer(outcome, log) ?? (outcome.kind === 'decided' ? { text: done } : undefined);
}

const decide =
  (to: 'approved' | 'rejected' | 'cancelled', done: string): HomeButton =>
  async (services, { user, value, click, log }) =>
    decided(await decideApprovalById(services, { id: value, by: user, to, click }), log, done);

const BUTTONS: Record<string, HomeButton> = {
  [HOME_APPROVE_ID]: decide('approved', ':white_check_mark: Approved: it runs once, and its card says so.'),
  [HOME_REJECT_ID]: decide('rejected', ':no_entry: Rejected: nothing was run.'),
  [HOME_CANCEL_APPROVAL_ID]: decide('cancelled', '✖️ Cancelled: nothing was run.'),
  [HOME_CANCEL_JOB_ID]: async (services, { user, value }) => {
    await services.requests.cancel(value, user, undefined);
    return { text: ':no_entry_sign: Cancelled before it started: nothing was sent to the gateway.' };
  },
  [HOME_RETRY_JOB_ID]: async (services, { user, value, click, log }) => {
    const retried = await retryJob(services, { jobKey: value, by: user, channel: undefined, click });
    if (retried.kind === 'decision')
      return decided(retried.outcome, log, ':repeat: Retried: it runs again once.');
    if (retried.kind === 'repeat') return undefined;
    const { result } = retried;
    if (result.kind === 'refused') return describeError(result.error, log);
    return { text: ':repeat: Retried: the new job reports in the same thread.' };
  },
  // A person's own token or sign-in grant, or anyone's for an admin, as `/gateway mcp revoke` (one rule).
  [HOME_REVOKE_TOKEN_ID]: async (services, { user, value, log }) => {
    const token = await services.tokens.revokeAs(value, user, services.access.isAdmin(user));
    if (!token) return { text: ':information_source: That token was already revoked or has expired.' };
    log.info(`assistant ${token.kind} ${token.id} revoked by ${user} from the Home tab`);
    const what = token.kind === 'grant' ? 'Sign-in' : 'Token';
    return {
      text: `:no_entry_sign: ${what} \`${token.id}\` is revoked: assistants using it are refused from now on.`,
    };
  },
  // Admins only, as binding and digests are: the settings of one bound channel, from Redis alone.
  [HOME_CHANNEL_SETTINGS_ID]: async (services, { user, value, triggerId }) => {
    if (!services.access.isAdmin(user))
      throw notAdminError('open a channel’s settings', services.access.admins());
    const [binding, digests] = await Promise.all([
      services.bindings.get(value),
      channelDigests(services, value),
    ]);
    const signoff = binding ? await channelSignoff(services, binding) : undefined;
    await services.outbound.openModal(
      triggerId,
      buildChannelSettings({ channel: value, binding, digests, ...(signoff ? { signoff } : {}) }),
    );
    return undefined;
  },
};

/** The ids the tab's buttons carry (the manifest lists them beside the channel's). */
export const HOME_ACTION_IDS = Object.keys(BUTTONS);

export function registerHomeButtons(
  routes: SlackRoutes,
  services: BotServices,
  marks: HomeMarks,
  publisher: HomePublisher,
): void {
  const answers = {
    answers: (body: { user: { id: string } }) => {
      const reply = (message: { text: string; blocks?: unknown[] }) =>
        marks.setNotice(body.user.id, message.blocks?.length ? message.blocks : [section(message.text)]);
      return { reply, replace: reply };
    },
    after: (body: { user: { id: string } }) => publisher.publish(body.user.id, { opened: true }),
  };
  const press: ButtonListener = async ({ body, action, context }) => {
    const { log, reply } = interactionOf(context);
    const answer = await BUTTONS[action.action_id]?.(services, {
      user: body.user.id,
      value: action.value ?? '',
      click: body.trigger_id || action.action_ts,
      triggerId: body.trigger_id,
      log,
    });
    if (answer)
      await reply({ text: answer.text, blocks: answer.blocks ?? [] }).catch((e: unknown) =>
        log.warn('could not keep the answer to a Home click', e),
      );
  };
  routes.buttons(HOME_ACTION_IDS, ...buttonPipeline(services, { answers }), press);
}
