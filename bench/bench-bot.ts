import { randomUUID } from 'node:crypto';
import { type Config, loadConfig } from '../src/config.js';
import type { FakeSlack } from '../src/local/fake-slack/index.js';

/** The signing secret and the admin of a bench's in-process bot. */
export const BENCH_SECRET = 'bench-signing-secret';
export const BENCH_ADMIN = 'UADMIN';

/**
 * The configuration of a bench's in-process bot: the Slack stand-in, a Redis prefix of its own (`bench-<name>-…`),
 * the sandbox gateway, BENCH_ADMIN as its admin; `env` adds or overrides the rest.
 */
export function benchBotConfig(
  name: string,
  slack: FakeSlack,
  redisUrl: string,
  env: Record<string, string> = {},
): { prefix: string; config: Config } {
  const prefix = `bench-${name}-${randomUUID().slice(0, 8)}`;
  const config = loadConfig({
    SLACK_BOT_TOKEN: slack.botToken,
    SLACK_SIGNING_SECRET: BENCH_SECRET,
    SLACK_API_URL: slack.apiUrl,
    PORT: '0',
    REDIS_URL: redisUrl,
    REDIS_PREFIX: prefix,
    GATEWAY_BASE_URL: 'sandbox',
    GATEWAY_ADMINS: BENCH_ADMIN,
    ...env,
  });
  return { prefix, config };
}
