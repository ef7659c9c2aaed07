import { type Logger, WebClient } from '@slack/web-api';
import { slackFetch } from './slack-fetch.js';

/**
 * The Web API clients of the web role, made here so that nothing outside slack/ builds one: each with the
 * retry policy its callers need (the worker's is `createWorkerSlackClient` in slack-poster.ts).
 */

/** The web role's messages, forms and Home: a 429 from chat.postMessage is waited out inside the client. */
export function webSlackClientOptions(apiUrl: string | undefined) {
  return {
    slackApiUrl: apiUrl,
    retryConfig: { retries: 3, factor: 2, minTimeout: 500, maxTimeout: 10_000 },
    fetch: slackFetch,
  };
}

export function createWebSlackClient(token: string, apiUrl: string | undefined, logger: Logger): WebClient {
  return new WebClient(token, { ...webSlackClientOptions(apiUrl), logger });
}

/**
 * Who someone is and who is in a group: short retries, a timeout and no waiting out a 429, since a person is
 * waiting for the answer (a lookup that fails refuses and says to try again).
 */
export function createPeopleClient(token: string, apiUrl: string | undefined, logger: Logger): WebClient {
  return new WebClient(token, {
    slackApiUrl: apiUrl,
    logger,
    timeout: 5_000,
    rejectRateLimitedCalls: true,
    retryConfig: { retries: 2, factor: 2, minTimeout: 200, maxTimeout: 1_000 },
    fetch: slackFetch,
  });
}
