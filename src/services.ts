import type { Redis } from 'ioredis';
import type { AccessPolicy } from './access/policy.js';
import type { Catalogue } from './actions/catalogue.js';
import type { Config } from './config.js';
import type { DigestStore } from './digests/store.js';
import type { GatewayClient } from './gateway/client.js';
import type { DigestQueue } from './jobs/digest-queue.js';
import type { ActionQueue } from './jobs/queue.js';
import type { AppLogger } from './logger.js';
import type { Metrics } from './metrics.js';
import type { ActionRequests } from './requests/action-requests.js';
import type { AnswerQueue } from './slack/answer-queue.js';
import type { BindingStore } from './store/bindings.js';

/** What the Slack listeners need: built once in main.ts (the composition root) and handed to each register(). */
export interface BotServices {
  config: Config;
  logger: AppLogger;
  redis: Redis;
  gateway: GatewayClient;
  /** The action catalogue, rebuilt from the (cached) discovery call so new gateway actions appear without code. */
  catalogue(): Promise<Catalogue>;
  bindings: BindingStore;
  queue: ActionQueue;
  /** Digest subscriptions and marks, and the queue `digest now` adds to. */
  digests: DigestStore;
  digestQueue: DigestQueue;
  metrics: Metrics;
  /** Who may do what: one policy for every command, click and submission. */
  access: AccessPolicy;
  /** The one way to ask for an action (requests/): every command, form and button goes through it. */
  requests: ActionRequests;
  /** Command answers after the ack, a few at a time (the ack never waits behind them). */
  answers: AnswerQueue;
}
