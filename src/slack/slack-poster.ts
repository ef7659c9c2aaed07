import { type Logger, WebClient } from '@slack/web-api';
import type { Reporter } from './reply-target.js';

/**
 * The Slack reporter (reply-target.ts): a job's status message in its channel (or in the target's thread),
 * replies in its thread. `chat.postMessage` allows about one message a second per channel; a 429 says how
 * long to wait (`Retry-After`), and the job waits that long instead of spinning. The WebClient
 * waits on its own unless built with `rejectRateLimitedCalls`; this covers that case too.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * How long to wait before calling again after a 429, or undefined when the error is not a 429. With
 * `rejectRateLimitedCalls` the client hands the wait over (`retryAfter`); otherwise it has already waited
 * Retry-After itself and only gives up because its own retries ran out, so calling again at once is right.
 */
function retryAfterMs(error: unknown): number | undefined {
  if (!error || typeof error !== 'object') return undefined;
  const e = error as { code?: string; retryAfter?: number; original?: { message?: string } };
  if (e.code === 'slack_webapi_rate_limited') return Math.max(1, e.retryAfter ?? 1) * 1_000;
  if (e.code === 'slack_webapi_request_error' && /rate limit was exceeded/i.test(e.original?.message ?? '')) {
    return 0;
  }
  return undefined;
}

async function withRateLimitWait<T>(call: () => Promise<T>, maxWaits: number): Promise<T> {
  for (let waits = 0; ; waits++) {
    try {
      return await call();
    } catch (error) {
      const wait = retryAfterMs(error);
      if (wait === undefined || waits >= maxWaits) throw error;
      await sleep(wait);
    }
  }
}

/** `maxWaits`: how many 429s a call waits out before it fails (the web role, with a person waiting: none). */
export function createSlackPoster(slack: WebClient, options: { maxWaits?: number } = {}): Reporter {
  const maxWaits = options.maxWaits ?? 5;
  return {
    post: async ({ channel, threadTs }, message) => {
      const answer = await withRateLimitWait(
        () =>
          slack.chat.postMessage({
            channel,
            text: message.text,
            blocks: message.blocks,
            ...(threadTs ? { thread_ts: threadTs } : {}),
          }),
        maxWaits,
      );
      return String(answer.ts ?? '');
    },
    update: async ({ channel }, ts, message) => {
      await withRateLimitWait(
        () => slack.chat.update({ channel, ts, text: message.text, blocks: message.blocks }),
        maxWaits,
      );
    },
    // A status message already in a thread has its replies beside it, in that thread.
    reply: async ({ channel, threadTs }, statusTs, message) => {
      await withRateLimitWait(
        () =>
          slack.chat.postMessage({
            channel,
            thread_ts: threadTs ?? statusTs,
            text: message.text,
            blocks: message.blocks,
          }),
        maxWaits,
      );
    },
    remove: async ({ channel }, ts) => {
      await withRateLimitWait(() => slack.chat.delete({ channel, ts }), maxWaits);
    },
  };
}

/**
 * The worker's Slack client. The library's default retries about ten times over about thirty minutes with no
 * timeout, so one hung or failing Slack call could hold a job (and, before the ledger, the record of what the
 * gateway did) for half an hour. A job's Slack calls give up within seconds instead; a job whose result could
 * not be posted is retried by BullMQ from its "done" checkpoint, so it is posted once Slack answers again.
 */
const WORKER_SLACK_RETRY = {
  retries: 2,
  factor: 2,
  minTimeout: 500,
  maxTimeout: 2_000,
  randomize: true,
};
const WORKER_SLACK_TIMEOUT_MS = 5_000;

export function createWorkerSlackClient(
  token: string,
  apiUrl: string | undefined,
  logger?: Logger,
): WebClient {
  return new WebClient(token, {
    ...(apiUrl ? { slackApiUrl: apiUrl } : {}),
    ...(logger ? { logger } : {}),
    retryConfig: WORKER_SLACK_RETRY,
    timeout: WORKER_SLACK_TIMEOUT_MS,
  });
}
