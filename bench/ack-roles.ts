/**
 * The ack benchmark's child processes, one role each (run as `ack-roles.ts <role>` by bench/ack.ts):
 *
 *   world  the local Slack stand-in and the sandbox gateway: what is outside the bot in production
 *   bot    the real bot, started through src/runtime.ts exactly as main.ts does
 *   bare   a Bolt app that only acks `/gateway`, built the way src/app.ts builds the bot's
 *   answerer  the same app, which also posts one fixed message to each command's response_url
 *
 * Separate processes so neither target pays for the outside world's CPU (block validation, rows served)
 * on its own event loop, and the load generator's timing is not delayed by it either.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import { Session } from 'node:inspector/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { App, HTTPReceiver } from '@slack/bolt';
import { BUSY_TEXT } from '../src/commands/gateway-command.js';
import { loadConfig } from '../src/config.js';
import { type FakeSlack, startFakeSlack } from '../src/local/fake-slack/index.js';
import { silentLogger } from '../src/logger.js';
import { type Runtime, startRuntime } from '../src/runtime.js';
import { type Sandbox, startSandbox } from '../src/sandbox/index.js';
import { postToResponseUrl } from '../src/slack/response-url.js';
import { type Operations, serveRole } from './ack-ipc.js';
import { AnswerWatch, CallStamper, epochMs, HELP_TEXT, type WatchedChannel } from './ack-watch.js';

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
  let stamper: CallStamper | undefined;
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
    /**
     * Answers the bot has given so far (response_url posts and channel posts), how many of those only said it
     * was too busy (a refusal, not an answer), how many failed, and how many response_url posts were neither
     * the help nor a refusal (`other`: in the load rounds, where every command is `help` or `keywords` in a
     * bound channel, an error reply; the binding commands' confirmations count here too).
     */
    async answers(): Promise<{ answered: number; busy: number; failed: number; other: number }> {
      let answered = 0;
      let busy = 0;
      let failed = 0;
      let other = 0;
      for (const call of fake().calls) {
        if (call.method !== 'response_url' && call.method !== 'chat.postMessage') continue;
        if (!call.ok) failed++;
        else if (call.method === 'response_url' && call.args.text === BUSY_TEXT) busy++;
        else {
          answered++;
          const text = call.args.text;
          if (call.method === 'response_url' && !(typeof text === 'string' && text.startsWith(HELP_TEXT)))
            other++;
        }
      }
      return { answered, busy, failed, other };
    },
    async stampStart() {
      stamper?.take();
      stamper = new CallStamper(fake(), BUSY_TEXT, epochMs);
    },
    async stampTake() {
      if (!stamper) throw new Error('nothing stamped');
      const taken = stamper.take();
      stamper = undefined;
      return taken;
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
      stamper?.take();
      await slack?.close();
      await sandbox?.close();
    },
  };
}

function botOperations(): Operations {
  let runtime: Runtime | undefined;
  let profiler: Session | undefined;
  return {
    /**
     * Starts a V8 CPU profile of this process and a sampled allocation profile (every allocation, collected
     * ones included: where the garbage comes from), for the measured rounds only: not start-up, not the warm-up.
     */
    async profileStart() {
      profiler = new Session();
      profiler.connect();
      await profiler.post('Profiler.enable');
      await profiler.post('Profiler.start');
      await profiler.post('HeapProfiler.enable');
      await profiler.post('HeapProfiler.startSampling', {
        samplingInterval: 4_096,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
    },
    /** Stops both and writes them into `dir` (.cpuprofile, .heapprofile); returns the CPU profile's path. */
    async profileStop(dir: string): Promise<string> {
      if (!profiler) throw new Error('no profile started');
      const { profile } = await profiler.post('Profiler.stop');
      const heap = await profiler.post('HeapProfiler.stopSampling');
      profiler.disconnect();
      profiler = undefined;
      await mkdir(dir, { recursive: true });
      const name = join(dir, `bot-measured-${process.pid}-${Date.now()}`);
      await writeFile(`${name}.cpuprofile`, JSON.stringify(profile));
      await writeFile(`${name}.heapprofile`, JSON.stringify(heap.profile));
      return `${name}.cpuprofile`;
    },
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

/** The fixed answer of the bare answering app: a short ephemeral, serialised once. */
const FIXED_ANSWER = JSON.stringify({ response_type: 'ephemeral', text: 'Answered.' });

/**
 * `answer`: after the ack, one fixed message to the command's response_url (the floor for answering a command
 * at all); otherwise the app only acks.
 */
function bareOperations(answer: boolean): Operations {
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
      app.command('/gateway', async ({ ack, command }) => {
        await ack();
        if (answer) await postToResponseUrl(command.response_url, FIXED_ANSWER);
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
  bare: () => bareOperations(false),
  answerer: () => bareOperations(true),
};

const role = process.argv[2];
const operations = role ? ROLES[role] : undefined;
if (process.send && operations) serveRole(operations());
