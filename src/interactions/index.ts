import type { App, BlockButtonAction } from '@slack/bolt';
import type { BotServices } from '../services.js';
import { ACTION_MODAL_CALLBACK_ID } from '../views/action-modal.js';
import { RETRY_ACTION_ID, RETRY_ANYWAY_ACTION_ID } from '../views/action-result.js';
import { DUPLICATE_CANCEL_ACTION_ID, DUPLICATE_CONFIRM_ACTION_ID } from '../views/duplicate-prompt.js';
import { PAGE_NEXT_ACTION, PAGE_PREV_ACTION } from '../views/resource-page.js';
import { actionModalSubmission } from './action-modal-submission.js';
import { duplicateCancel, duplicateConfirm } from './duplicate-buttons.js';
import { jobRetry } from './job-buttons.js';
import { pageButton } from './page-buttons.js';
import { type ButtonListener, buttonPipeline, type ViewListener, viewPipeline } from './pipeline.js';

/** Every button the bot listens to, by the action id its view gives the button. */
const BUTTONS: Record<string, (services: BotServices) => ButtonListener> = {
  [PAGE_PREV_ACTION]: pageButton,
  [PAGE_NEXT_ACTION]: pageButton,
  [DUPLICATE_CONFIRM_ACTION_ID]: duplicateConfirm,
  [DUPLICATE_CANCEL_ACTION_ID]: duplicateCancel,
  [RETRY_ACTION_ID]: (services) => jobRetry(services, { anyway: false }),
  [RETRY_ANYWAY_ACTION_ID]: (services) => jobRetry(services, { anyway: true }),
};

/** Every form the bot listens to, by its callback id. */
const VIEWS: Record<string, (services: BotServices) => ViewListener> = {
  [ACTION_MODAL_CALLBACK_ID]: actionModalSubmission,
};

/** The interactive ids the bot listens to, from the maps above: the manifest test checks them against manifest.yml. */
export const INTERACTIVE_IDS = { actions: Object.keys(BUTTONS), views: Object.keys(VIEWS) } as const;

/** Every button and form listener (STYLE §3: one register per surface), each behind the pipeline. */
export function register(app: App, services: BotServices): void {
  const buttons = buttonPipeline(services);
  for (const [id, listener] of Object.entries(BUTTONS)) {
    app.action<BlockButtonAction>(id, ...buttons, listener(services));
  }
  const views = viewPipeline(services);
  for (const [id, listener] of Object.entries(VIEWS)) app.view(id, ...views, listener(services));
}
