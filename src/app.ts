import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, type CustomRoute, HTTPReceiver, type LogLevel, SocketModeReceiver } from '@slack/bolt';
import { register as registerCommands } from './commands/index.js';
import { register as registerHome } from './home/index.js';
import { healthProbeKey, healthRoutes } from './http/health-routes.js';
import { type HealthServer, startHealthServer } from './http/health-server.js';
import { register as registerInteractions } from './interactions/index.js';
import { atLeastInfo } from './logger.js';
import { mcpRoutes } from './mcp/index.js';
import { oauthRoutes } from './oauth/index.js';
import type { BotServices, CoreServices } from './services.js';
import { BotIdentity } from './slack/bot-identity.js';
import { instrumentRequests } from './slack/request-context.js';
import { SlackRoutes } from './slack/slack-routes.js';
import { webSlackClientOptions } from './slack/web-clients.js';
import { SocketConnection } from './socket-connection.js';
import { register as registerWorkflows } from './workflows/index.js';

/**
 * Bolt's ignoreSelf middleware drops the app's own messages and events; the app listens to no message and to
 * one event, a person opening the Home tab, so it would only be one more step before every ack.
 */
const IGNORE_SELF = false;

/**
 * Bolt's default builds a new Web API client around each Workflow Builder step event's run token, before the
 * ack. The bot never calls Slack through Bolt's client: a step's end goes through slack/workflow-steps.ts with
 * the token kept for it (workflows/step-runs.ts), so that client would be work for nothing on every step.
 */
const ATTACH_FUNCTION_TOKEN = false;

/** `/healthz`, `/readyz` and `/metrics` of this process (Slack's readiness where the process talks to Slack). */
function processHealth(services: CoreServices, slackReady?: () => string) {
  return healthRoutes({
    redis: services.redis,
    probeKey: healthProbeKey(services.config.redis.prefix),
    metrics: services.metrics,
    gatewayReady: () => services.gateway.discover({ force: true }),
    ...(slackReady ? { slackReady } : {}),
    metricsToken: services.config.metricsToken,
  });
}

/** The assistant-tool server and its authorization server and sign-in pages (when the OAuth client is set). */
function assistantRoutes(services: CoreServices, slackBusy?: () => boolean) {
  return [...mcpRoutes(services, slackBusy), ...oauthRoutes(services)];
}

/**
 * The port of a process without the web role: with `assistants` (ROLE=mcp) the assistant tools and the sign-in
 * as a process of their own, apart from Slack's acks; always health and metrics (workers and the scheduler are
 * checked and scraped the same way).
 */
export function startRoleServer(
  services: CoreServices,
  port: number,
  assistants: boolean,
): Promise<HealthServer> {
  const routes = [...processHealth(services), ...(assistants ? assistantRoutes(services) : [])];
  return startHealthServer(routes, port);
}

export interface Bot {
  app: App;
  /** Starts serving; resolves with the HTTP port (HTTP mode: Slack's endpoint and health; Socket Mode: health). */
  start(port: number): Promise<number>;
  stop(): Promise<void>;
}

/** The Bolt app and its receiver for the configured transport; the App's options are the same for both. */
function boltApp(services: BotServices, identity: BotIdentity, routes: CustomRoute[]) {
  const { config, logger } = services;
  const clientOptions = webSlackClientOptions(config.slack.apiUrl);
  const options = {
    authorize: identity.authorize,
    logger,
    // Bolt resets an injected logger's level to its own default unless told the configured one.
    logLevel: config.logLevel as LogLevel,
    clientOptions,
    // No conversation store: nothing reads it, and it is middleware work on every request before the ack.
    convoStore: false as const,
    ignoreSelf: IGNORE_SELF,
    attachFunctionToken: ATTACH_FUNCTION_TOKEN,
  };
  if (config.slack.mode === 'socket') {
    // Our own receiver, its reconnecting ours (socket-connection.ts), and the Web API address Bolt's would not
    // pass on to the app-level token's calls. The Socket Mode client's debug lines print every envelope, live
    // response URLs included: it logs at info at most, whatever LOG_LEVEL says.
    const socketReceiver = new SocketModeReceiver({
      appToken: config.slack.appToken ?? '',
      logger: atLeastInfo(logger.child({ part: 'socket-mode' })),
      autoReconnectEnabled: false,
      installerOptions: { clientOptions },
    });
    const socket = new SocketConnection(socketReceiver, logger);
    return { app: new App({ ...options, receiver: socketReceiver }), socket, receiver: undefined };
  }
  const receiver = new HTTPReceiver({
    signingSecret: config.slack.signingSecret ?? '',
    endpoints: '/slack/events',
    customRoutes: routes,
    logger,
    unhandledRequestTimeoutMillis: 2_900,
  });
  return { app: new App({ ...options, receiver }), receiver, socket: undefined };
}

/** Every surface's routes behind one Bolt middleware (slack/slack-routes.ts), not one Bolt listener each. */
function routeSurfaces(app: App, services: BotServices): { stop(): Promise<void> } {
  const slackRoutes = new SlackRoutes();
  // Who is in which channel decides which clients a token reaches: every process reads it anew after a change.
  slackRoutes.membershipChanged(async ({ event }) => {
    await services.reach.membershipChanged(event.user);
  });
  registerCommands(slackRoutes, services);
  registerInteractions(slackRoutes, services);
  const home = registerHome(slackRoutes, services);
  registerWorkflows(slackRoutes, services);
  slackRoutes.attach(app);
  return home;
}

/**
 * Builds the Bolt app for either transport: HTTP mode verifies every request with the signing
 * secret at `/slack/events` (stale timestamps refused); Socket Mode is chosen by SLACK_APP_TOKEN. Both serve
 * `/healthz`, `/readyz` and `/metrics`.
 */
export function createBot(services: BotServices): Bot {
  const { config, logger } = services;
  // Not Bolt's own auth.test at construction: a Slack outage at start must not crash or disable the app.
  const identity = new BotIdentity(config.slack.botToken ?? '', config.slack.apiUrl, logger);
  const routes = [
    ...processHealth(services, () => identity.readiness()),
    // The assistant-tool server (`POST /mcp`) on the same port, in HTTP and Socket Mode alike; its work starts only
    // while no Slack answer is in progress (a flood measured otherwise slowed Slack's reads by half).
    ...assistantRoutes(services, () => services.answers.pending + services.gatewayAnswers.pending > 0),
  ];
  const { app, receiver, socket } = boltApp(services, identity, routes);
  let healthServer: HealthServer | undefined;
  instrumentRequests(app, services.metrics);
  const home = routeSurfaces(app, services);
  app.error(async (error) => {
    logger.error('unhandled listener error', error);
  });

  return {
    app,
    async start(port) {
      identity.start();
      if (receiver) {
        const server = (await app.start(port)) as Server;
        return (server.address() as AddressInfo).port;
      }
      healthServer = await startHealthServer(routes, port);
      await socket?.start().catch(async (error: unknown) => {
        await healthServer?.close();
        throw error;
      });
      return healthServer.port;
    },
    async stop() {
      identity.stop();
      socket?.stop();
      await home.stop();
      await app.stop();
      await healthServer?.close();
    },
  };
}
