import type { App } from '@slack/bolt';
import type { BotServices } from '../services.js';
import { PAGE_NEXT_ACTION, PAGE_PREV_ACTION } from '../views/resource-page.js';
import { actionModalSubmission } from './action-modal.js';
import { duplicateCancel, duplicateConfirm } from './duplicate-buttons.js';
import { jobRetry } from './job-buttons.js';
import { pageButton } from './page-buttons.js';

/** Interactive ids, one list: the manifest test checks them against what the code registers. */
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

/** Every button and modal listener (STYLE §3: one register per surface). */
export function register(app: App, services: BotServices): void {
  const page = pageButton(services);
  app.action(PAGE_PREV_ACTION, page);
  app.action(PAGE_NEXT_ACTION, page);
  app.action('duplicate_confirm', duplicateConfirm(services));
  app.action('duplicate_cancel', duplicateCancel(services));
  app.action('job_retry', jobRetry(services, { anyway: false }));
  app.action('job_retry_anyway', jobRetry(services, { anyway: true }));
  app.view('action_modal', actionModalSubmission(services));
}
