import { type Logger, WebClient } from '@slack/web-api';
import { slackFetch } from './slack-fetch.js';

/**
 * A Workflow Builder step's end, told to Slack: `functions.completeSuccess` with the step's outputs, or
 * `functions.completeError` with a message for the workflow's owner. Each call is made with the execution's
 * own token (the `bot_access_token` of its `function_executed` event), which Slack gives for that run alone;
 * the client is built per call and kept nowhere, so the token lives no longer than the call.
 */

export type StepOutputs = Record<string, string | number | boolean>;

export interface WorkflowStepPort {
  complete(token: string, executionId: string, outputs: StepOutputs): Promise<void>;
  fail(token: string, executionId: string, error: string): Promise<void>;
}

/** Slack answers a completion it already has with an error: the step ended, which is all the caller wants. */
const ENDED = new Set(['function_execution_already_completed', 'function_execution_not_found']);

export function createWorkflowStepPort(apiUrl: string | undefined, logger: Logger): WorkflowStepPort {
  const client = (token: string) =>
    new WebClient(token, {
      slackApiUrl: apiUrl,
      logger,
      timeout: 10_000,
      retryConfig: { retries: 4, factor: 2, minTimeout: 250, maxTimeout: 5_000 },
      fetch: slackFetch,
    });
  const ended = (error: unknown): boolean => {
    const code = (error as { data?: { error?: string } } | undefined)?.data?.error;
    return code !== undefined && ENDED.has(code);
  };
  return {
    async complete(token, executionId, outputs) {
      try {
        await client(token).functions.completeSuccess({ function_execution_id: executionId, outputs });
      } catch (error) {
        if (!ended(error)) throw error;
      }
    },
    async fail(token, executionId, error) {
      try {
        await client(token).functions.completeError({ function_execution_id: executionId, error });
      } catch (e) {
        if (!ended(e)) throw e;
      }
    },
  };
}
