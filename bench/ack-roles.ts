/**
 * The ack benchmark's child processes, one role each (run as `ack-roles.ts <role>` by bench/ack.ts):
 *
 *   world  the local Slack stand-in and the sandbox gateway: what is outside the bot in production
 *   bot    the real bot, started through src/runtime.ts exactly as main.ts does
 *   bare   a Bolt app that only acks `/gateway`, built the way src/app.ts builds the bot's
 *
 * Separate processes so neither target pays for the outside world's CPU (block validation, rows served)
 * on its own event loop, and the load generator's timing is not delayed by it either.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, HTTPReceiver } from '@slack/bolt';
import { loadConfig } from '../src/config.js';
import { type FakeSlack, startFakeSlack } from '../src/local/fake-slack/index.js';
import { silentLogger } from '../src/logger.js';
import { type Runtime, startRuntime } from '../src/runtime.js';
import { type Sandbox, startSandbox } from '../src/sandbox/index.js';
import { type Operations, serveRole } from './ack-ipc.js';
import { AnswerWatch, epochMs, type WatchedChannel } from './ack-watch.js';

export interface WorldInfo {
  apiUrl: string;
  botToken: string;
  teamId: string;
  teamDomain: string;
  appId: string;
  sandboxUrl: string;
}

function worldOperations(): Operations {
  let slack: FakeSlack | undefined;
  let sandbox: Sandbox | undefined;
  let watch: AnswerWatch | undefined;
  const fake = (): FakeSlack => {
    if (!slack) throw new Error('world not started');
    return slack;
  };
  return {
    async start(): Promise<WorldInfo> {
      slack = await startFakeSlack();
      sandbox = await startSandbox({ port: 0 });
      return {
        apiUrl: slack.apiUrl,
        botToken: slack.botToken,
        teamId: slack.teamId,
        teamDomain: slack.teamDomain,
        appId: slack.appId,
        sandboxUrl: sandbox.url,
      };
    },
    /** A fresh response URL and trigger id for each [channel, user]. */
    async mint(targets: Array<[channel: string, user: string]>): Promise<Array<[string, string]>> {
      const s = fake();
      return targets.map(([channel, user]) => [s.newResponseUrl(channel, user), s.newTriggerId(user)]);
    },
    /** Answers the bot has given so far (response_url posts and channel posts), and how many failed. */
    async answers(): Promise<{ answered: number; failed: number }> {
      let answered = 0;
      let failed = 0;
      for (const call of fake().calls) {
        if (call.method !== 'response_url' && call.method !== 'chat.postMessage') continue;
        if (call.ok) answered++;
        else failed++;
      }
      return { answered, failed };
    },
    /** What the bot told people in a channel (error replies), for a benchmark that stops on one. */
    async replies(channel: string): Promise<string[]> {
      return fake()
        .ephemerals(channel)
        .map((m) => m.text);
    },
    async reset() {
      watch?.stop();
      fake().reset();
    },
    async watch(channels: WatchedChannel[]) {
      watch?.stop();
      watch = new AnswerWatch(fake(), channels, epochMs);
    },
    async collect(timeoutMs: number) {
      if (!watch) throw new Error('nothing watched');
      return watch.collect(timeoutMs);
    },
    async stop() {
      watch?.stop();
      await slack?.close();
      await sandbox?.close();
    },
  };
}

function botOperations(): Operations {
  let runtime: Runtime | undefined;
  return {
    async start(env: Record<string, string>): Promise<number> {
      runtime = await startRuntime(loadConfig(env), silentLogger());
      if (runtime.port === undefined) throw new Error('the runtime did not start the web role');
      return runtime.port;
    },
    async stop() {
      await runtime?.stop(5_000);
    },
  };
}

function bareOperations(): Operations {
  let app: App | undefined;
  return {
    async start(options: { botToken: string; apiUrl: string; signingSecret: string }): Promise<number> {
      const logger = silentLogger();
      // The same receiver settings as src/app.ts, so the only difference between the targets is the listener.
      const receiver = new HTTPReceiver({
        signingSecret: options.signingSecret,
        endpoints: '/slack/events',
        logger,
        unhandledRequestTimeoutMillis: 2_900,
      });
      app = new App({
        token: options.botToken,
        receiver,
        logger,
        clientOptions: { slackApiUrl: options.apiUrl },
      });
      app.command('/gateway', async ({ ack }) => {
        await ack();
      });
      const server = (await app.start(0)) as Server;
      return (server.address() as AddressInfo).port;
    },
    async stop() {
      await app?.stop();
    },
  };
}

const ROLES: Record<string, () => Operations> = {
  world: worldOperations,
  bot: botOperations,
  bare: bareOperations,
};

const role = process.argv[2];
const operations = role ? ROLES[role] : undefined;
if (process.send && operations) serveRole(operations());
