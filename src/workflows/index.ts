import type { SlackEventMiddlewareArgs } from '@slack/bolt';
import type { BotServices, CoreServices } from '../services.js';
import type { SlackRoutes } from '../slack/slack-routes.js';
import { runStep } from './run-step.js';
import { StepEnds } from './step-end.js';

/**
 * The Workflow Builder surface: one custom step per catalogue action (the manifest's `functions`, written by
 * `npm run manifest`). A `function_executed` event is acked at once, claimed by its execution id (a redelivery
 * runs nothing), and its inputs go to the request layer as a command's would (run-step.ts); the step ends
 * when its job ends or its approval is refused (step-end.ts, which the composition root subscribes to the
 * action queue's "request finished" and to approval changes in every process).
 */

export { StepEnds } from './step-end.js';

/** Steps share the answer lanes of commands that need no gateway read: their asks never delay an ack. */
const LANE = 'workflow-step';
const BUSY = 'The bot was too busy to ask for this step just now; run the workflow again in a minute.';

export function register(routes: SlackRoutes, services: BotServices): void {
  const ends = new StepEnds(services);
  routes.functionExecuted(async ({ ack, event }: SlackEventMiddlewareArgs<'function_executed'>) => {
    await ack();
    const failBusy = () => {
      void ends
        .end(event.function_execution_id, { error: BUSY })
        .catch((e: unknown) => services.logger.warn('could not fail a workflow step', e));
    };
    const taken = services.answers.offer(LANE, () => onStep(services, ends, event), { refuse: failBusy });
    if (!taken) failBusy();
  });
}

type FunctionExecuted = SlackEventMiddlewareArgs<'function_executed'>['event'];

async function onStep(services: CoreServices, ends: StepEnds, event: FunctionExecuted): Promise<void> {
  const executionId = event.function_execution_id;
  const log = services.logger.child({ step: event.function.callback_id, execution: executionId });
  // The token is sealed in Redis at once and never logged; a redelivery of the same execution stops here.
  if (!(await ends.runs.begin(executionId, event.bot_access_token))) {
    log.info('function_executed delivered again; already running');
    return;
  }
  let refusal: string | undefined;
  try {
    refusal = await runStep(services, ends, {
      executionId,
      action: event.function.callback_id,
      inputs: (event.inputs ?? {}) as Record<string, unknown>,
    });
  } catch (error) {
    log.error('workflow step could not be asked for', error);
    refusal =
      'The bot could not ask for this step (Redis or the gateway did not answer); run the workflow again.';
  }
  if (refusal)
    await ends.end(executionId, { error: refusal }).catch((e) => log.warn('could not fail the step', e));
}
