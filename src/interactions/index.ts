import type { BotServices } from '../services.js';
import {
  type ButtonListener,
  buttonPipeline,
  type ViewListener,
  viewPipeline,
} from '../slack/interaction-pipeline.js';
import type { SlackRoutes } from '../slack/slack-routes.js';
import { ACTION_MODAL_CALLBACK_ID } from '../views/action-modal.js';
import { RETRY_ACTION_ID, RETRY_ANYWAY_ACTION_ID } from '../views/action-result.js';
import {
  APPROVAL_APPROVE_ID,
  APPROVAL_CANCEL_ID,
  APPROVAL_REJECT_ID,
  APPROVAL_RETRY_ID,
} from '../views/approval-card.js';
import { HISTORY_OLDER_ID } from '../views/approval-history.js';
import { APPROVAL_VIEW_ID } from '../views/approval-post.js';
import { DUPLICATE_CANCEL_ACTION_ID, DUPLICATE_CONFIRM_ACTION_ID } from '../views/duplicate-prompt.js';
import { CANCEL_JOB_ACTION_ID } from '../views/job-status.js';
import { PAGE_NEXT_ACTION, PAGE_PREV_ACTION } from '../views/resource-page.js';
import { REQUEST_DEPLOY_ID, REQUEST_SEND_ID } from '../views/result-card.js';
import { APPROVAL_WAIVE_ID, WAIVE_VIEW_ID } from '../views/signoff-waiver.js';
import { REBIND_CANCEL_ACTION, REBIND_CONFIRM_ACTION } from '../views/status.js';
import { actionModalSubmission } from './action-modal-submission.js';
import { approvalButton } from './approval-buttons.js';
import { duplicateCancel, duplicateConfirm } from './duplicate-buttons.js';
import { requestDeployButton, requestSendButton } from './follow-up-buttons.js';
import { historyOlder } from './history-buttons.js';
import { jobCancel, jobRetry } from './job-buttons.js';
import { pageButton } from './page-buttons.js';
import { rebindCancel, rebindConfirm } from './rebind-buttons.js';
import { viewPostButton } from './view-post-button.js';
import { waiveButton, waiveSubmission } from './waive-buttons.js';

/** Every button the bot listens to, by the action id its view gives the button. */
const BUTTONS: Record<string, (services: BotServices) => ButtonListener> = {
  [PAGE_PREV_ACTION]: pageButton,
  [PAGE_NEXT_ACTION]: pageButton,
  [DUPLICATE_CONFIRM_ACTION_ID]: duplicateConfirm,
  [DUPLICATE_CANCEL_ACTION_ID]: duplicateCancel,
  [RETRY_ACTION_ID]: (services) => jobRetry(services, { anyway: false }),
  [RETRY_ANYWAY_ACTION_ID]: (services) => jobRetry(services, { anyway: true }),
  [APPROVAL_APPROVE_ID]: (services) => approvalButton(services, 'approved'),
  [APPROVAL_RETRY_ID]: (services) => approvalButton(services, 'approved'),
  [APPROVAL_REJECT_ID]: (services) => approvalButton(services, 'rejected'),
  [APPROVAL_CANCEL_ID]: (services) => approvalButton(services, 'cancelled'),
  [REQUEST_DEPLOY_ID]: requestDeployButton,
  [REQUEST_SEND_ID]: requestSendButton,
  [HISTORY_OLDER_ID]: historyOlder,
  [CANCEL_JOB_ACTION_ID]: jobCancel,
  [REBIND_CONFIRM_ACTION]: rebindConfirm,
  [REBIND_CANCEL_ACTION]: rebindCancel,
  [APPROVAL_WAIVE_ID]: waiveButton,
  [APPROVAL_VIEW_ID]: viewPostButton,
};

/** Every form the bot listens to, by its callback id. */
const VIEWS: Record<string, (services: BotServices) => ViewListener> = {
  [ACTION_MODAL_CALLBACK_ID]: actionModalSubmission,
  [WAIVE_VIEW_ID]: waiveSubmission,
};

/** The buttons a person of another workspace may press, as a client approver: Approve, Reject, View on a card. */
const SIGNOFF_BUTTONS = new Set([APPROVAL_APPROVE_ID, APPROVAL_REJECT_ID, APPROVAL_VIEW_ID]);

/** The interactive ids the bot listens to, from the maps above: the manifest test checks them against manifest.yml. */
export const INTERACTIVE_IDS = { actions: Object.keys(BUTTONS), views: Object.keys(VIEWS) } as const;

/**
 * Every button and every form behind the pipeline, then a lookup by id: one route each for all their ids
 * (slack/slack-routes.ts), so a request costs one lookup however many ids there are.
 */
export function register(routes: SlackRoutes, services: BotServices): void {
  routes.buttons(INTERACTIVE_IDS.actions, ...buttonListeners(services));
  const views = new Map(Object.entries(VIEWS).map(([id, make]) => [id, make(services)]));
  const dispatchView: ViewListener = async (args) => {
    const listener = views.get(args.view.callback_id);
    if (listener) await listener(args);
  };
  routes.views(INTERACTIVE_IDS.views, ...viewPipeline(services), dispatchView);
}

/** Every button's middleware, the pipeline then the lookup by id: what Bolt runs, and the command test harness. */
export function buttonListeners(services: BotServices): ButtonListener[] {
  const buttons = new Map(Object.entries(BUTTONS).map(([id, make]) => [id, make(services)]));
  const dispatchButton: ButtonListener = async (args) => {
    const listener = buttons.get(args.action.action_id);
    if (listener) await listener(args);
  };
  return [...buttonPipeline(services, { signoffButtons: SIGNOFF_BUTTONS }), dispatchButton];
}
