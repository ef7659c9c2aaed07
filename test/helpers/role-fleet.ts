import { loadConfig } from '../../src/config.js';
import { type FakeSlack, startFakeSlack } from '../../src/local/fake-slack/index.js';
import { createLogger, silentLogger } from '../../src/logger.js';
import { type Runtime, type RuntimeOptions, startRuntime } from '../../src/runtime.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { TEST_REDIS_URL, testRedis, uniquePrefix } from './redis.js';

/**
 * Several runtimes, each with one ROLE, on one Redis prefix in this process, beside one Slack stand-in and one
 * sandbox: what separate web, worker and scheduler processes share, without the process start-up.
 */
export interface RoleFleet {
  slack: FakeSlack;
  sandbox: Sandbox;
  prefix: string;
  signingSecret: string;
  start(role: string, options?: RuntimeOptions): Promise<Runtime>;
  close(): Promise<void>;
}

export async function startRoleFleet(
  name: string,
  {
    env = {},
    sandboxLatencyMs,
    largeKeywordRows,
  }: { env?: Record<string, string>; sandboxLatencyMs: number; largeKeywordRows?: number },
): Promise<RoleFleet> {
  const prefix = uniquePrefix(name);
  const signingSecret = `${name}-secret`;
  const slack = await startFakeSlack();
  const sandbox = await startSandbox({
    knobs: { latencyMs: sandboxLatencyMs },
    ...(largeKeywordRows ? { largeKeywordRows } : {}),
  });
  const runtimes: Runtime[] = [];
  return {
    slack,
    sandbox,
    prefix,
    signingSecret,
    async start(role, options = {}) {
      const config = loadConfig({
        SLACK_BOT_TOKEN: slack.botToken,
        SLACK_SIGNING_SECRET: signingSecret,
        SLACK_API_URL: slack.apiUrl,
        PORT: '0',
        REDIS_URL: TEST_REDIS_URL,
        REDIS_PREFIX: prefix,
        ROLE: role,
        GATEWAY_BASE_URL: sandbox.url,
        GATEWAY_API_KEY: 'sandbox-key',
        GATEWAY_ADMINS: 'UADMIN',
        // The stand-in does not pace channels unless a test asks: neither does the bot.
        SLACK_POST_INTERVAL: '0s',
        ...env,
      });
      const logger = process.env.E2E_LOGS ? createLogger({ level: 'debug' }) : silentLogger();
      const runtime = await startRuntime(config, logger, options);
      runtimes.push(runtime);
      return runtime;
    },
    async close() {
      for (const runtime of runtimes) await runtime.stop(5_000);
      await slack.close();
      await sandbox.close();
      await testRedis(prefix).cleanup();
    },
  };
}
