import { WebClient } from '@slack/web-api';
import { request } from 'undici';
import { gatewayListener } from '../../src/commands/index.js';
import { buttonListeners } from '../../src/interactions/index.js';
import { SlackDriver } from '../../src/local/driver.js';
import { type FakeMessage, type FakeSlack, startFakeSlack } from '../../src/local/fake-slack/index.js';
import { silentLogger } from '../../src/logger.js';
import { type Runtime, startRuntime } from '../../src/runtime.js';
import { CHANNEL, MEMBER, testConfig } from './bot-harness.js';
import { testRedis, uniquePrefix } from './redis.js';

/**
 * One surface's listener run without the app around it, as Bolt's starter template tests its listeners: the
 * `/gateway` listener or the button listeners are called with the arguments Bolt would give them (built by the
 * local driver, unsigned, no HTTP receiver, no Bolt app, no workers or scheduler), over the core services,
 * against the Slack stand-in and the sandbox gateway on loopback. What the person sees lands at the stand-in.
 */
export interface CommandHarness {
  slack: FakeSlack;
  runtime: Runtime;
  /** Calls the `/gateway` listener; resolves with how many times it acked once the listener returned. */
  command(text: string, as?: { user?: string; channel?: string }): Promise<{ acks: number }>;
  /** Calls the button listeners for a click on `target`'s button with that text. */
  click(target: FakeMessage, button: string, as?: { user?: string }): Promise<{ acks: number }>;
  close(): Promise<void>;
}

type Middleware<A> = (args: A & { next: () => Promise<void> }) => Promise<void>;

/** Bolt's chain: each middleware calls `next` for the rest; every one sees the same context. */
async function runChain<A>(chain: ReadonlyArray<Middleware<A>>, args: A): Promise<void> {
  const step = async (i: number): Promise<void> => {
    const middleware = chain[i];
    if (middleware) await middleware({ ...args, next: () => step(i + 1) });
  };
  await step(0);
}

/** Bolt's `respond`: a JSON POST to the request's response_url. */
const respondTo = (url: string) => async (message: object) => {
  const answer = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(message),
  });
  await answer.body.dump();
};

export async function commandHarness(
  name: string,
  env: Record<string, string> = {},
): Promise<CommandHarness> {
  const prefix = uniquePrefix(name);
  const slack = await startFakeSlack();
  const runtime = await startRuntime(testConfig(slack, prefix, env), silentLogger(), { roles: [] });
  // Only builds payloads here: it never sends (the transport is never used).
  const driver = new SlackDriver({ slack, transport: 'socket' });
  const client = new WebClient(slack.botToken, { slackApiUrl: slack.apiUrl });
  const logger = runtime.services.logger;
  const gateway = gatewayListener(runtime.services) as unknown as Middleware<object>;
  const buttons = buttonListeners(runtime.services) as unknown as ReadonlyArray<Middleware<object>>;
  return {
    slack,
    runtime,
    async command(text, as = {}) {
      const { fields } = driver.commandFields(text, {
        user: as.user ?? MEMBER,
        channel: as.channel ?? CHANNEL,
      });
      let acks = 0;
      const ack = async () => {
        acks++;
      };
      const respond = respondTo(fields.response_url ?? '');
      await runChain([gateway], {
        command: fields,
        body: fields,
        payload: fields,
        ack,
        respond,
        client,
        logger,
        context: {},
      });
      return { acks };
    },
    async click(target, button, as = {}) {
      const { payload } = driver.clickPayload(target, button, { user: as.user ?? MEMBER });
      const action = (payload.actions as object[])[0];
      let acks = 0;
      const ack = async () => {
        acks++;
      };
      const respond = respondTo(String(payload.response_url ?? ''));
      await runChain(buttons, {
        body: payload,
        payload: action,
        action,
        ack,
        respond,
        client,
        logger,
        context: {},
      });
      return { acks };
    },
    async close() {
      await runtime.stop(5_000);
      await slack.close();
      await testRedis(prefix).cleanup();
    },
  };
}
