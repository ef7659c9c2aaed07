import type { App, BlockButtonAction, Middleware, SlackActionMiddlewareArgs } from '@slack/bolt';
import type { BotServices } from '../services.js';
import { PAGE_NEXT_ACTION, PAGE_PREV_ACTION } from '../views/resource-page.js';
import { actionModalSubmission } from './action-modal.js';
import { duplicateCancel, duplicateConfirm } from './duplicate-buttons.js';
import { jobRetry } from './job-buttons.js';
import { pageButton } from './page-buttons.js';
import { buttonForPeople, viewForPeople } from './require-person.js';

type ButtonListener = Middleware<SlackActionMiddlewareArgs<BlockButtonAction>>;

function buttonListeners(services: BotServices): Record<string, ButtonListener> {
  const page = pageButton(services);
  return {
    [PAGE_PREV_ACTION]: page,
    [PAGE_NEXT_ACTION]: page,
    duplicate_confirm: duplicateConfirm(services),
    duplicate_cancel: duplicateCancel(services),
    job_retry: jobRetry(services, { anyway: false }),
    job_retry_anyway: jobRetry(services, { anyway: true }),
  };
}

/** The interactive ids the bot listens to: the manifest test checks them against manifest.yml. */
export const INTERACTIVE_IDS = {
  actions: [
    PAGE_PREV_ACTION,
    PAGE_NEXT_ACTION,
    'duplicate_confirm',
    'duplicate_cancel',
    'job_retry',
    'job_retry_anyway',
  ],
  views: ['action_modal'],
} as const;

/** Every button and modal listener (STYLE §3: one register per surface), each behind the person check. */
export function register(app: App, services: BotServices): void {
  const buttons = buttonListeners(services);
  for (const id of INTERACTIVE_IDS.actions) {
    const listener = buttons[id];
    if (!listener) throw new Error(`no listener for the interactive id ${id}`);
    app.action<BlockButtonAction>(id, buttonForPeople(services, listener));
  }
  app.view('action_modal', viewForPeople(services, actionModalSubmission(services)));
}
