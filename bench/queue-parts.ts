import { WebClient } from '@slack/web-api';
import { buildCatalogue } from '../src/actions/catalogue.js';
import { GatewayClient } from '../src/gateway/client.js';
import { startFakeSlack } from '../src/local/fake-slack/index.js';
import { ensureRedis } from '../src/local/redis-local.js';
import { createRedis, type RedisTarget } from '../src/redis/connection.js';
import { startSandbox } from '../src/sandbox/index.js';

/**
 * Both sides of the action queue in one process: Redis, the sandbox gateway, a fake Slack and the catalogue.
 * `target`: a Redis Cluster or Sentinels to use instead of the one Redis at REDIS_URL.
 */
export async function startQueueParts(target?: RedisTarget) {
  const redisInfo = target
    ? { url: target.url, target, stop: async () => {} }
    : await ensureRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const connection: string | RedisTarget = 'target' in redisInfo ? redisInfo.target : redisInfo.url;
  const sandbox = await startSandbox({ port: 0, largeKeywordRows: 1_000 });
  const slack = await startFakeSlack();
  const web = new WebClient(slack.botToken, { slackApiUrl: slack.apiUrl });
  const gateway = new GatewayClient({ baseUrl: sandbox.url, apiKey: 'sandbox-key', actionTimeoutMs: 10_000 });
  const catalogue = buildCatalogue(await gateway.discover(), { guardedActions: [] });
  const redis = createRedis(connection);
  return {
    redisInfo,
    connection,
    sandbox,
    slack,
    web,
    gateway,
    catalogue,
    redis,
    close: async () => {
      await redis.quit();
      await gateway.close();
      await sandbox.close();
      await slack.close();
      await redisInfo.stop();
    },
  };
}
