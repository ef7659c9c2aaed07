import { type Config, loadConfig } from '../../src/config.js';
import { SlackDriver } from '../../src/local/driver.js';
import {
  type FakeMessage,
  type FakeSlack,
  type FakeView,
  startFakeSlack,
} from '../../src/local/fake-slack/index.js';
import { createLogger, silentLogger } from '../../src/logger.js';
import { type Runtime, type RuntimeOptions, startRuntime } from '../../src/runtime.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { TEST_REDIS_URL, testRedis, uniquePrefix } from './redis.js';

export const SIGNING_SECRET = 'e2e-signing-secret';
export const ADMIN = 'UADMIN';
export const MEMBER = 'UMEMBER';
export const CHANNEL = 'CSEO';

export interface Harness {
  slack: FakeSlack;
  runtime: Runtime;
  driver: SlackDriver;
  sandbox: Sandbox;
  config: Config;
  prefix: string;
  /** Sends `/gateway <text>` as a user in a channel. */
  gateway(text: string, as?: { user?: string; channel?: string }): ReturnType<SlackDriver['command']>;
  /** Waits for the newest ephemeral message to a user that matches. */
  ephemeral(
    match: (m: FakeMessage) => boolean,
    as?: { user?: string; channel?: string },
  ): Promise<FakeMessage>;
  /** Waits for a top-level channel message that matches. */
  message(match: (m: FakeMessage) => boolean, channel?: string): Promise<FakeMessage>;
  /** The POSTs of one action that reached the sandbox, in order. */
  posts(action: string): ReturnType<Sandbox['requests']>;
  /** The person's newest open modal (title matching, if given) once its inputs are there (after "Loading…"). */
  openModal(title?: RegExp, user?: string): Promise<FakeView>;
  /** Sends an action command; when the bot opens a modal, waits for its inputs and submits it with `values`. */
  runAction(command: string, values?: Record<string, string>): Promise<void>;
  /** The newest channel message that matches (a job's status message) and its thread, once it has replies. */
  settled(
    match: (m: FakeMessage) => boolean,
    channel?: string,
  ): Promise<{ status: FakeMessage; thread: FakeMessage[] }>;
  close(): Promise<void>;
}

export const textOf = (m: FakeMessage): string => `${m.text}\n${JSON.stringify(m.blocks ?? [])}`;

/** The configuration every in-process test bot starts from: the stand-in, the sandbox, its own prefix. */
export function testConfig(slack: FakeSlack, prefix: string, env: Record<string, string> = {}): Config {
  return loadConfig({
    SLACK_BOT_TOKEN: slack.botToken,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: slack.apiUrl,
    PORT: '0',
    REDIS_URL: TEST_REDIS_URL,
    REDIS_PREFIX: prefix,
    // The in-process sandbox, chosen explicitly as the runtime requires with a Slack token.
    GATEWAY_BASE_URL: 'sandbox',
    GATEWAY_ADMINS: ADMIN,
    GATEWAY_ACTION_RATE: '1000/1s',
    GATEWAY_ACTION_TIMEOUT: '2s',
    // The stand-in does not pace channels unless a test asks (test/e2e/slack-pace.test.ts): neither does the bot.
    SLACK_POST_INTERVAL: '0s',
    ...env,
  });
}

/** Assistant sign-in on: the app's OAuth client and Slack's web host are the stand-in's. */
export const signInEnv = (slack: FakeSlack): Record<string, string> => ({
  SLACK_CLIENT_ID: slack.clientId,
  SLACK_CLIENT_SECRET: slack.clientSecret,
  SLACK_WEB_URL: slack.origin,
});

/**
 * The whole bot as it runs for real: the runtime from src/runtime.ts (Bolt over HTTP, Redis, the BullMQ
 * workers, the in-process sandbox gateway) against the local Slack stand-in, with its own Redis prefix.
 */
export async function startHarness(
  name: string,
  env: Record<string, string> | ((slack: FakeSlack) => Record<string, string>) = {},
  options: RuntimeOptions = {},
): Promise<Harness> {
  const prefix = uniquePrefix(name);
  const slack = await startFakeSlack();
  const config = testConfig(slack, prefix, typeof env === 'function' ? env(slack) : env);
  const logger = process.env.E2E_LOGS ? createLogger({ level: 'debug' }) : silentLogger();
  const runtime = await startRuntime(config, logger, {
    ...options,
    worker: { reconcileGraceMs: 50, backoffMs: 50, ...options.worker },
  }).catch(async (error: unknown) => {
    // A start that is refused (a test of the refusal) must not leave the stand-in or its keys behind.
    await slack.close();
    await testRedis(prefix).cleanup();
    throw error;
  });
  const sandbox = runtime.sandbox;
  if (!sandbox) throw new Error('harness: expected the in-process sandbox (GATEWAY_BASE_URL=sandbox)');
  const driver = new SlackDriver({
    eventsUrl: `http://127.0.0.1:${runtime.port}/slack/events`,
    signingSecret: SIGNING_SECRET,
    slack,
  });
  const harness: Harness = {
    slack,
    runtime,
    driver,
    sandbox,
    config,
    prefix,
    gateway: (text, as = {}) =>
      driver.command(text, { user: as.user ?? MEMBER, channel: as.channel ?? CHANNEL }),
    ephemeral: (match, as = {}) =>
      slack.waitFor(
        () =>
          slack
            .ephemerals(as.channel ?? CHANNEL, as.user ?? MEMBER)
            .filter(match)
            .at(-1),
        { what: 'an ephemeral reply' },
      ),
    message: (match, channel = CHANNEL) =>
      slack.waitFor(() => slack.messages(channel).filter(match).at(-1), { what: 'a channel message' }),
    posts: (action) => sandbox.requests().filter((r) => r.method === 'POST' && r.action === action),
    openModal: (title, user = MEMBER) =>
      slack.waitFor(
        () =>
          slack
            .views(user)
            .filter(
              (v) =>
                (!title || title.test(v.view.title.text)) &&
                v.view.blocks.some((b: { type: string }) => b.type === 'input'),
            )
            .at(-1),
        { what: `the ${title ?? 'action'} modal with its inputs` },
      ),
    async runAction(command, values = {}) {
      const before = slack.views(MEMBER).length;
      await driver.command(command, { user: MEMBER, channel: CHANNEL });
      await new Promise((r) => setTimeout(r, 150));
      if (slack.views(MEMBER).length <= before) return;
      await driver.submit(await harness.openModal(), values, { user: MEMBER });
    },
    async settled(match, channel = CHANNEL) {
      const status = await slack.waitFor(() => slack.messages(channel).filter(match).at(-1), {
        what: 'a job status message',
        timeoutMs: 10_000,
      });
      const thread = await slack.waitFor(
        () => {
          const replies = slack.thread(channel, status.ts);
          return replies.length ? replies : undefined;
        },
        { what: 'a thread reply', timeoutMs: 10_000 },
      );
      return { status, thread };
    },
    async close() {
      await runtime.stop(5_000);
      await slack.close();
      await testRedis(prefix).cleanup();
    },
  };
  return harness;
}

/** Asks for an assistant token in Slack (`/gateway mcp token`) as `user` and returns it from the ephemeral answer. */
export async function mintMcpToken(h: Harness, user: string): Promise<string> {
  const before = h.slack.ephemerals(CHANNEL, user).length;
  await h.gateway('mcp token', { user });
  const answer = await h.slack.waitFor(
    () =>
      h.slack
        .ephemerals(CHANNEL, user)
        .slice(before)
        .find((m) => /gwb_/.test(textOf(m))),
    { what: 'the token' },
  );
  return /gwb_[A-Za-z0-9_-]{20,}/.exec(textOf(answer))?.[0] ?? '';
}

/** Binds the harness channel to a client as the admin and waits for the confirmation. */
export async function bind(h: Harness, clientId: string, channel = CHANNEL): Promise<void> {
  const asked = h.slack.ephemerals(channel, ADMIN).length;
  const posted = h.slack.messages(channel).length;
  await h.gateway(`use ${clientId}`, { user: ADMIN, channel });
  // A channel bound to another client asks first (`rebind_confirm`): confirm, as the admin would.
  const answer = await h.slack.waitFor(
    () =>
      h.slack
        .messages(channel)
        .slice(posted)
        .find((m) => m.text.includes('now bound to') && m.text.includes(clientId)) ??
      h.slack
        .ephemerals(channel, ADMIN)
        .slice(asked)
        .find((m) => textOf(m).includes('rebind_confirm')),
    { what: `the binding to ${clientId}` },
  );
  if (!answer.ephemeral) return;
  await h.driver.click(answer, { actionId: 'rebind_confirm' }, { user: ADMIN });
  await h.slack.waitFor(
    () =>
      h.slack
        .messages(channel)
        .slice(posted)
        .find((m) => m.text.includes('now bound to') && m.text.includes(clientId)),
    { what: `the binding to ${clientId}` },
  );
}
