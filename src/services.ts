import type { ClientReach } from './access/client-reach.js';
import type { AccessPolicy } from './access/policy.js';
import type { Catalogue } from './actions/catalogue.js';
import type { ApprovalExpiry } from './approvals/approval-expiry.js';
import type { ApprovalStore } from './approvals/approval-store.js';
import type { AssistantReads } from './assistant-calls.js';
import type { BindingStore } from './bindings/binding-store.js';
import type { SignoffStore } from './bindings/signoff-store.js';
import type { Config } from './config.js';
import type { DigestQueue } from './digests/digest-queue.js';
import type { DigestStore } from './digests/store.js';
import type { GatewayClient } from './gateway/client.js';
import type { ActionQueue } from './jobs/queue.js';
import type { AppLogger } from './logger.js';
import type { Metrics } from './metrics.js';
import type { Redis } from './redis/connection.js';
import type { RedisOutageLog } from './redis/outage.js';
import type { ActionRequests } from './requests/action-requests.js';
import type { AnswerLanes } from './slack/answer-lanes.js';
import type { SlackOutbound } from './slack/slack-poster.js';
import type { AssistantTokenStore } from './store/assistant-token-store.js';
import type { ActionLedger } from './store/ledger.js';
import type { TokenFeature } from './tokens/index.js';

/**
 * The core, each part made once by the composition root (runtime-core.ts) when a role first uses it: what every
 * surface that asks for work (Slack listeners, approvals, digests, an assistant-tool server) shares, and none
 * of it knows Slack payloads.
 */
export interface CoreServices {
  config: Config;
  logger: AppLogger;
  redis: Redis;
  /** The process's one account of a Redis outage: background loops report a lost connection here, not alone. */
  redisOutage: RedisOutageLog;
  gateway: GatewayClient;
  /** The action catalogue (actions/catalogue-source.ts), rebuilt from discovery so new actions need no code. */
  catalogue(): Promise<Catalogue>;
  bindings: BindingStore;
  /** Each channel's sign-off policy and its client's named approvers. */
  signoffs: SignoffStore;
  queue: ActionQueue;
  ledger: ActionLedger;
  /** Digest subscriptions and marks, and the queue `digest now` adds to. */
  digests: DigestStore;
  digestQueue: DigestQueue;
  metrics: Metrics;
  /** Who may do what: one policy for every command, click and submission. */
  access: AccessPolicy;
  /** The one way to ask for an action (requests/). */
  requests: ActionRequests;
  /** Approval requests of guarded actions, and their expiry jobs. */
  approvals: ApprovalStore;
  approvalExpiry: ApprovalExpiry;
  /** The web role's way out to Slack: status messages, approval cards, a command's messages in its channel. */
  outbound: SlackOutbound;
  /** Assistant-tool tokens (minted in Slack, checked by the MCP server). */
  assistantTokens: AssistantTokenStore;
  /** Assistant access as a whole: static tokens and sign-in grants, who a bearer is, the sign-in itself. */
  tokens: TokenFeature;
  /** Which clients a person reaches outside a channel (assistant tools). */
  reach: ClientReach;
  /**
   * The bot's address as people and their assistants reach it (no trailing slash): PUBLIC_URL when set, else
   * loopback on the port this process actually listens on (PORT=0 picks a free one; known once it serves).
   */
  botUrl(): string;
  /**
   * The assistant tools' gateway client: a connection pool of its own, every read through `assistantReads`
   * (in flight per process and per person, pages per call), so assistants never hold Slack's connections.
   */
  assistantGateway: GatewayClient;
  assistantReads: AssistantReads;
}

/** The Slack side, handed to each register(): the core, and what only Slack listeners need. */
export interface BotServices extends CoreServices {
  /** Command answers that read nothing from the gateway, after the ack, a few at a time (the ack never waits behind them). */
  answers: AnswerLanes;
  /** Answers that read the gateway, in slots of their own (a slow gateway never holds up the others). */
  gatewayAnswers: AnswerLanes;
}
