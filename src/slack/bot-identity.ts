import type { AuthorizeResult } from '@slack/bolt';
import { WebClient } from '@slack/web-api';
import type { AppLogger } from '../logger.js';
import { SlackUnreachableError, slackFetch } from './slack-fetch.js';

interface Identity {
  botId?: string;
  botUserId?: string;
}

const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 60_000;

/**
 * Who the bot is (`auth.test`), asked at start and remembered once Slack answers.
 *
 * Given a token, Bolt calls `auth.test` in its constructor and keeps that one promise for ever: when Slack
 * did not answer at start, the rejection went unhandled and the process crashed, and had it not, every
 * request would have been refused until a restart. Here the app is given this `authorize` instead of the
 * token: a failure is logged with what to do, asked again with backoff (1 s doubling to 60 s), and a request
 * that arrives meanwhile asks once more itself (a short timeout, no retries: its ack is due within 3 s).
 */
export class BotIdentity {
  readonly #token: string;
  readonly #client: WebClient;
  readonly #logger: AppLogger;
  #known: Identity | undefined;
  #pending: Promise<Identity> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  /** Why the last ask failed, until Slack answers once. */
  #failure = 'not asked yet';

  constructor(token: string, apiUrl: string | undefined, logger: AppLogger) {
    this.#token = token;
    this.#logger = logger;
    this.#client = new WebClient(token, {
      ...(apiUrl ? { slackApiUrl: apiUrl } : {}),
      logger,
      timeout: 2_000,
      retryConfig: { retries: 0 },
      fetch: slackFetch,
    });
  }

  /** Bolt's `authorize`: the token and the bot's ids, asking Slack once more when they are not known yet. */
  readonly authorize = async (): Promise<AuthorizeResult> => ({
    botToken: this.#token,
    ...(await this.identify()),
  });

  get known(): boolean {
    return this.#known !== undefined;
  }

  /** For /readyz: `ok` once Slack has answered auth.test, else why not yet. */
  readiness(): string {
    return this.#known ? 'ok' : `not reached (auth.test has not answered: ${this.#failure})`;
  }

  identify(): Promise<Identity> {
    if (this.#known) return Promise.resolve(this.#known);
    this.#pending ??= this.#client.auth
      .test()
      .then((answer) => {
        this.#known = { botId: answer.bot_id, botUserId: answer.user_id };
        return this.#known;
      })
      .finally(() => {
        this.#pending = undefined;
      });
    return this.#pending;
  }

  /** Asks at once and, until Slack answers, again with backoff; never throws. */
  start(): void {
    this.#stopped = false;
    const attempt = (waitMs: number) => {
      this.identify().then(
        () => {
          if (waitMs > FIRST_RETRY_MS) this.#logger.info('Slack answered auth.test: serving requests');
        },
        (error: unknown) => {
          if (this.#stopped) return;
          this.#failure = failureReason(error);
          const what = describeFailure(error);
          this.#logger.error(
            `${what}; the bot keeps running and asks again in ${Math.round(waitMs / 1_000)} s. Requests that ` +
              'arrive until Slack answers are acknowledged but not handled.',
          );
          this.#timer = setTimeout(() => attempt(Math.min(waitMs * 2, MAX_RETRY_MS)), waitMs);
          this.#timer.unref();
        },
      );
    };
    attempt(FIRST_RETRY_MS);
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }
}

/** The network's own account of a request that got no answer (slack-fetch.ts), when that is what failed. */
function unreachable(error: unknown): SlackUnreachableError | undefined {
  const original = (error as { original?: unknown }).original;
  return original instanceof SlackUnreachableError ? original : undefined;
}

/** Short, for /readyz: a Slack error code, an HTTP status, or the host and network code. */
function failureReason(error: unknown): string {
  const e = error as { data?: { error?: string }; statusCode?: number };
  if (e.data?.error) return e.data.error;
  if (e.statusCode) return `HTTP ${e.statusCode}`;
  const network = unreachable(error);
  return network ? `${network.host} ${network.reason}` : 'no answer';
}

function describeFailure(error: unknown): string {
  const e = error as { data?: { error?: string }; statusCode?: number };
  if (e.data?.error) return `Slack refused auth.test (${e.data.error}): check SLACK_BOT_TOKEN`;
  if (e.statusCode) return `Slack answered auth.test with HTTP ${e.statusCode}`;
  const network = unreachable(error);
  if (network)
    return `Slack did not answer auth.test: ${network.host} not reached (${network.reason}); check SLACK_API_URL, DNS and the way out to it (proxy, firewall)`;
  return 'Slack did not answer auth.test';
}
