import { randomBytes } from 'node:crypto';
import { readFileSync, statSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pretty from 'pino-pretty';
import { type Config, ConfigError, loadConfig } from '../config.js';
import { createLogger } from '../logger.js';
import { createRedis, deleteByPrefix } from '../redis/connection.js';
import { type Runtime, startRuntime } from '../runtime.js';
import { DemoConsole } from './console.js';
import { imageSaver } from './console-files.js';
import { type LineSource, scriptSource, streamSource, terminalSource } from './console-input.js';
import { ConsoleAssistant } from './console-mcp.js';
import { SlackDriver } from './driver.js';
import { type FakeSlack, startFakeSlack } from './fake-slack/index.js';
import { DEFAULT_USERS } from './fake-slack/state.js';
import { ensureRedis, type PrivateRedis } from './redis-local.js';

/**
 * `npm run demo`: the whole bot with no configuration. The built-in sandbox gateway, the local Slack
 * stand-in, Redis (a private redis-server when none answers), the bot and its workers, and a console in
 * which a person plays a Slack user. `--script FILE` (or a pipe) runs lines and exits when the work is done.
 */

const USAGE = `Usage: npm run demo [-- --script FILE]
  Without a script: an interactive console (type help).
  --script FILE, or lines piped to stdin: runs them, waits for the bot after each, prints the transcript, exits.
  Exit code: 0 when every line ran; 2 when a line could not be carried out (marked with ! in the transcript; the
  lines after it still run); 1 when the bot stopped answering or the demo could not start.`;

const ADMIN = 'UADMIN';
const APPROVER = 'UOTHER';

/** Redis URL as it may be printed: a password is hidden. */
function printableRedisUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString().replace(/\/$/, '');
  } catch {
    return 'redis (unparseable URL)';
  }
}

/**
 * The demo's configuration: the environment for what a person may tune (LOG_LEVEL, rates, sandbox knobs,
 * REDIS_URL), and the demo's own parts over it; Slack and the gateway are always the local ones.
 */
function demoConfig(
  env: NodeJS.ProcessEnv,
  parts: { slack: FakeSlack; signingSecret: string; redisUrl: string; prefix: string },
): Config {
  return loadConfig({
    LOG_LEVEL: 'warn',
    // Three actions a minute, so the tour shows a job that waits its turn (the bot's own default is 10/60s).
    GATEWAY_ACTION_RATE: '4/60s',
    ...env,
    SLACK_BOT_TOKEN: parts.slack.botToken,
    SLACK_SIGNING_SECRET: parts.signingSecret,
    SLACK_APP_TOKEN: '',
    SLACK_API_URL: parts.slack.apiUrl,
    // Assistant sign-in through the stand-in's Sign in with Slack, as the console's current person.
    SLACK_CLIENT_ID: parts.slack.clientId,
    SLACK_CLIENT_SECRET: parts.slack.clientSecret,
    SLACK_WEB_URL: parts.slack.origin,
    PORT: '0',
    GATEWAY_BASE_URL: 'sandbox',
    GATEWAY_API_KEY: '',
    REDIS_URL: parts.redisUrl,
    REDIS_PREFIX: parts.prefix,
    ROLE: 'all',
    GATEWAY_ADMINS: ADMIN,
    // Carol approves too, so a deploy alice (or her assistant) asks for can be approved by someone else.
    GATEWAY_APPROVERS: `${ADMIN},${APPROVER}`,
  });
}

const print = (line: string) => process.stdout.write(`${line}\n`);

/** The log file, unless the run logged nothing: an empty file per run is litter in the temp folder. */
function removeIfEmpty(path: string): void {
  try {
    if (statSync(path).size === 0) unlinkSync(path);
  } catch {
    // Never created, or already gone.
  }
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: { script: { type: 'string', short: 's' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    print(USAGE);
    return 0;
  }
  const script = values.script ? readFileSync(values.script, 'utf8') : undefined;
  // Lines piped in run as they arrive; only a terminal gets the interactive console.
  const piped = script === undefined && !process.stdin.isTTY;

  // Validates the environment once, before anything starts, and names the Redis to use.
  const wantedRedis = loadConfig({ ...process.env, SLACK_BOT_TOKEN: '', SLACK_APP_TOKEN: '' }).redis.url;
  let privateRedis: PrivateRedis;
  try {
    privateRedis = await ensureRedis(wantedRedis);
  } catch (error) {
    process.stderr.write(`demo: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  const prefix = `demo-${randomBytes(4).toString('hex')}`;
  const logPath = join(tmpdir(), `gateway-bot-${prefix}.log`);
  let slack: FakeSlack | undefined;
  let runtime: Runtime | undefined;
  let source: LineSource | undefined;
  let assistant: ConsoleAssistant | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopping: Promise<void> | undefined;

  const stop = () => {
    stopping ??= (async () => {
      if (timer) clearInterval(timer);
      source?.close();
      await assistant?.close();
      await runtime?.stop(5_000).catch(() => {});
      await slack?.close().catch(() => {});
      const redis = createRedis(privateRedis.url);
      redis.on('error', () => {});
      await deleteByPrefix(redis, prefix).catch(() => {});
      await redis.quit().catch(() => redis.disconnect());
      await privateRedis.stop();
      removeIfEmpty(logPath);
    })();
    return stopping;
  };
  const interrupt = () => {
    print('\n(stopping…)');
    void stop().then(() => process.exit(130));
  };
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);

  try {
    slack = await startFakeSlack();
    const signingSecret = randomBytes(16).toString('hex');
    const config = demoConfig(process.env, { slack, signingSecret, redisUrl: privateRedis.url, prefix });
    const logger = createLogger({
      level: config.logLevel,
      secrets: [signingSecret, slack.botToken],
      // Readable lines in a file the console names (pino-pretty, a dev dependency: the demo only): the console
      // shows the conversation, and a worker's warning must not land in the middle of it.
      destination: pretty({
        destination: logPath,
        sync: true,
        colorize: false,
        translateTime: 'SYS:HH:MM:ss',
        ignore: 'pid,hostname,name',
      }),
    });
    runtime = await startRuntime(config, logger);
    const queue = runtime.services.queue.queue;
    const digestQueue = runtime.services.digestQueue.queue;
    const actionQueue = runtime.services.queue;
    const sandbox = runtime.sandbox;
    const driver = new SlackDriver({
      eventsUrl: `http://127.0.0.1:${runtime.port}/slack/events`,
      signingSecret,
      slack,
    });
    // Everyone is a member of #seo, as in Slack: an assistant reaches the clients of its person's channels.
    for (const user of DEFAULT_USERS) slack.simulate.joinChannel('CSEO', user.id);
    const mcpUrl = `${runtime.services.botUrl()}/mcp`;
    const { secret: mcpToken } = await runtime.services.assistantTokens.mint({
      user: ADMIN,
      team: slack.teamId,
      scope: 'write',
      ttlMs: config.mcp.tokenTtlMs,
    });
    // Charts (posted in Slack or returned to an assistant) are written here and the console prints each path.
    const saveImage = imageSaver(join(tmpdir(), `gateway-bot-${prefix}-images`));
    assistant = new ConsoleAssistant(mcpUrl, (user) => slack?.userName(user) ?? user, saveImage);
    assistant.useToken(ADMIN, mcpToken);
    const interactive = script === undefined && !piped;
    const demo = new DemoConsole({
      slack,
      driver,
      interactive,
      saveImage,
      mcp: assistant,
      roles: {
        [ADMIN]: 'an admin and an approver',
        UMEMBER: 'a member',
        [APPROVER]: 'a member and an approver',
        UGUEST: 'a guest (the bot serves no guests)',
        UEXTERNAL: 'of the client’s workspace (refused, unless named a client approver)',
        UFRANK: 'of a third workspace (refused)',
      },
      busy: async (options) => {
        // Not the digests' delayed jobs: a schedule keeps one waiting for its next run, days away.
        // Nor, after each line, action jobs that only wait for the rate window (GATEWAY_ACTION_RATE): their
        // message says so and carries a Cancel button, and a script goes on instead of sitting out the window
        // (`wait` sits it out).
        const held = !options?.queued && ((await actionQueue.estimateWait(0)).ms ?? 0) > 1_000;
        const counts = [
          await queue.getJobCounts(
            'active',
            'delayed',
            ...(held ? [] : (['waiting', 'prioritized'] as const)),
          ),
          await digestQueue.getJobCounts('waiting', 'active', 'prioritized'),
        ];
        return counts.some((c) => Object.values(c).some((n) => n > 0));
      },
      ...(sandbox
        ? {
            advance: () =>
              sandbox
                .advance()
                .map(
                  (a) =>
                    `(sandbox: ${a.day} at ${a.clientId}: ${a.reviews} new reviews, ${a.keywordRows.toLocaleString('en-US')} new keyword positions)`,
                ),
          }
        : {}),
    });
    const own = privateRedis.url === wantedRedis ? '' : ', a private redis-server';
    const redisLine =
      privateRedis.url === wantedRedis
        ? `the Redis already answering at ${printableRedisUrl(wantedRedis)} (REDIS_URL), under its own key prefix ${prefix}; it deletes those keys when it stops and touches no others`
        : `a private redis-server (nothing answered at ${printableRedisUrl(wantedRedis)}), stopped with the demo`;
    print(
      `demo: sandbox gateway ${runtime.sandbox?.url ?? '(none)'} · fake Slack ${slack.apiUrl} · ` +
        `Redis ${printableRedisUrl(privateRedis.url)} (keys under ${prefix}${own}) · bot on port ${runtime.port}`,
    );
    print(`demo: Redis: ${redisLine}`);
    print(
      `demo: the bot's log (LOG_LEVEL=${config.logLevel}) goes to ${logPath} (removed at the end if nothing was logged)`,
    );
    print(`demo: assistant tools (MCP) at ${mcpUrl} · alice's token ${mcpToken}`);
    print(
      `demo:   claude mcp add --transport http gateway ${mcpUrl} --header "Authorization: Bearer ${mcpToken}"` +
        ' · or in this console: mcp tools, mcp list_keywords client_id=acme-plumbing limit=5',
    );
    print(
      `demo:   or sign in (no header): claude mcp add --transport http gateway ${mcpUrl} — the stand-in's Slack signs in the console's current person`,
    );
    print(
      'You are alice (an admin) in #seo. Type /gateway help to start, help for the console, quit to leave.',
    );
    const write = (chunk: string) => process.stdout.write(chunk);
    source =
      script !== undefined
        ? scriptSource(script, write)
        : piped
          ? streamSource(process.stdin, write)
          : terminalSource(process.stdin, process.stdout, interrupt);
    if (interactive) timer = setInterval(() => demo.flush(), 200);
    const outcome = await demo.run(source);
    if (outcome.crashed) return 1;
    return outcome.problems > 0 && !interactive ? 2 : 0;
  } catch (error) {
    const message =
      error instanceof ConfigError ? error.message : error instanceof Error ? error.message : String(error);
    process.stderr.write(`demo: ${message}\n`);
    return 1;
  } finally {
    await stop();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`demo: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
