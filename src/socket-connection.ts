import type { SocketModeReceiver } from '@slack/bolt';
import type { AppLogger } from './logger.js';

const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 60_000;

/** What `apps.connections.open` answers when the app-level token itself is wrong: no retry fixes that. */
const TOKEN_REFUSALS = new Set([
  'invalid_auth',
  'not_authed',
  'not_allowed_token_type',
  'token_revoked',
  'token_expired',
  'account_inactive',
  'missing_scope',
]);

const refusalOf = (error: unknown): string | undefined => {
  const code = (error as { data?: { error?: unknown } } | undefined)?.data?.error;
  return typeof code === 'string' ? code : undefined;
};

function describeFailure(error: unknown): string {
  const refusal = refusalOf(error);
  if (refusal && TOKEN_REFUSALS.has(refusal))
    return (
      `Slack refused the app-level token (${refusal} from apps.connections.open): check SLACK_APP_TOKEN, an ` +
      "xapp- token from the app's Basic Information → App-Level Tokens with the connections:write scope"
    );
  if (refusal) return `Slack refused to open a Socket Mode connection (${refusal})`;
  const status = (error as { statusCode?: unknown } | undefined)?.statusCode;
  if (typeof status === 'number') return `Slack answered apps.connections.open with HTTP ${status}`;
  return 'Slack did not answer apps.connections.open';
}

/**
 * The Socket Mode connection, kept up as the HTTP mode's `auth.test` is (slack/bot-identity.ts). The Slack client
 * library gives up at start when Slack cannot be reached, and when that happens on one of its own
 * reconnects the rejection is unhandled and ends the process; so its reconnecting is off and this does it:
 * at once after a close, then with backoff (1 s doubling to 60 s) while Slack does not answer. Only a refused
 * app-level token at start stops the bot, named as such.
 */
export class SocketConnection {
  readonly #receiver: SocketModeReceiver;
  readonly #logger: AppLogger;
  #timer: NodeJS.Timeout | undefined;
  #connecting = false;
  #stopped = false;
  #failing = false;

  constructor(receiver: SocketModeReceiver, logger: AppLogger) {
    this.#receiver = receiver;
    this.#logger = logger;
    receiver.client.on('disconnected', () => {
      if (this.#stopped || this.#connecting || this.#timer) return;
      this.#logger.warn('the Socket Mode connection to Slack closed; connecting again');
      void this.#attempt(FIRST_RETRY_MS);
    });
  }

  /** The first connection: a refused app-level token throws; Slack not answering is retried in the background. */
  async start(): Promise<void> {
    this.#stopped = false;
    const failure = await this.#attempt(FIRST_RETRY_MS);
    const refusal = refusalOf(failure);
    if (refusal && TOKEN_REFUSALS.has(refusal)) {
      this.stop();
      throw Object.assign(new Error(describeFailure(failure)), { code: 'slack_app_token_refused' });
    }
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** One try; on failure, logs what is wrong and schedules the next. Resolves with the failure, if any. */
  async #attempt(waitMs: number): Promise<unknown> {
    this.#timer = undefined;
    this.#connecting = true;
    try {
      await this.#receiver.start();
      this.#connecting = false;
      if (this.#failing) this.#logger.info('Socket Mode connected to Slack: serving requests');
      this.#failing = false;
      return undefined;
    } catch (error: unknown) {
      this.#connecting = false;
      if (this.#stopped) return error;
      this.#failing = true;
      this.#logger.error(
        `${describeFailure(error)}; the bot keeps running and connects again in ${Math.round(waitMs / 1_000)} s.`,
      );
      this.#timer = setTimeout(() => void this.#attempt(Math.min(waitMs * 2, MAX_RETRY_MS)), waitMs);
      return error;
    }
  }
}
