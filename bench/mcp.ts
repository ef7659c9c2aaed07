/**
 * Assistant-tool benchmark (`npx tsx bench/mcp.ts [samples] [flood commands]`): what the MCP layer adds, with the SDK's own
 * client over HTTP against the real bot (runtime.ts, HTTP mode), Redis, the Slack stand-in and the sandbox.
 * - A read tool (`list_audits`, 50 rows) against the same gateway read made directly with the gateway client,
 *   p50 of each, interleaved. Goal: at most +15 ms at p50.
 * - An action tool (`index_url`) to its job reference, with 500 jobs already queued ahead (a web-only bot: no
 *   worker takes them), p50 and p99. Goal: p99 under 300 ms. The time includes the status message to Slack.
 * - A Slack ack's p99 and a Slack read's p50 with and without an assistant flood (bench/mcp-flood.ts), as ratios.
 */
import { randomUUID } from 'node:crypto';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SlackDriver } from '../src/local/driver.js';
import { startFakeSlack } from '../src/local/fake-slack/index.js';
import { ensureRedis } from '../src/local/redis-local.js';
import { silentLogger } from '../src/logger.js';
import { createRedis, deleteByPrefix } from '../src/redis/connection.js';
import { startRuntime } from '../src/runtime.js';
import { BENCH_ADMIN as ADMIN, benchBotConfig, BENCH_SECRET as SECRET } from './bench-bot.js';
import { floodFigures } from './mcp-flood.js';
import { runIfMain } from './run-if-main.js';

const CHANNEL = 'CBENCH';
const CLIENT = 'harbor-law';
const BACKLOG = 500;

const now = () => performance.now();
function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}
const sortedOf = (values: number[]) => [...values].sort((a, b) => a - b);
const ms = (v: number) => `${v.toFixed(1)} ms`;

export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<boolean> {
  const samples = Number(argv[0] ?? 200);
  const floodCommands = Number(argv[1] ?? 80);
  const redisInfo = await ensureRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const slack = await startFakeSlack();
  const { prefix, config } = benchBotConfig('mcp', slack, redisInfo.url, {
    MCP_RATE: '1000000/60s',
    LOG_LEVEL: 'error',
  });
  // Web only: the backlog stays queued while the action tool is timed.
  const runtime = await startRuntime(config, silentLogger(), { roles: ['web'] });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  try {
    const driver = new SlackDriver({
      eventsUrl: `http://127.0.0.1:${runtime.port}/slack/events`,
      signingSecret: SECRET,
      slack,
    });
    slack.simulate.joinChannel(CHANNEL, ADMIN);
    await driver.command(`use ${CLIENT}`, { user: ADMIN, channel: CHANNEL });
    await slack.waitFor(() => slack.messages(CHANNEL).find((m) => m.text.includes('now bound to')), {
      what: 'the binding',
    });
    const { secret } = await runtime.services.assistantTokens.mint({
      user: ADMIN,
      team: slack.teamId,
      scope: 'write',
      ttlMs: 3_600_000,
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${runtime.port}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${secret}` } },
      }),
    );
    const gateway = runtime.services.gateway;

    // Reads, interleaved so a busy machine weighs on both alike; the first ones warm both paths up.
    const viaTool: number[] = [];
    const direct: number[] = [];
    for (let i = 0; i < samples + 10; i++) {
      let t = now();
      const result = await client.callTool({
        name: 'list_audits',
        arguments: { client_id: CLIENT, limit: 50 },
      });
      const toolMs = now() - t;
      if ((result as { isError?: boolean }).isError) throw new Error('bench: list_audits failed');
      t = now();
      await gateway.read('seo_reports', { clientId: CLIENT, limit: 50, order: 'created_at' });
      const directMs = now() - t;
      if (i >= 10) {
        viaTool.push(toolMs);
        direct.push(directMs);
      }
    }

    // The backlog: 500 jobs queued ahead, as `/gateway` would have queued them.
    for (let i = 0; i < BACKLOG; i++) {
      await runtime.services.queue.enqueue(
        {
          jobKey: `bench-backlog-${i}-${randomUUID()}`,
          action: 'index_url',
          clientId: CLIENT,
          clientLabel: 'Harbor Law',
          fields: { url: `https://harbor-law.example/backlog-${i}` },
          replyTo: { kind: 'slack', channel: CHANNEL },
          requestedBy: ADMIN,
          statusTs: '1.000001',
          enqueuedAt: Date.now(),
        },
        async () => undefined,
      );
    }
    const toReference: number[] = [];
    for (let i = 0; i < samples; i++) {
      const t = now();
      const result = (await client.callTool({
        name: 'index_url',
        arguments: { client_id: CLIENT, url: `https://harbor-law.example/bench-${i}` },
      })) as { structuredContent?: { status?: string; ahead?: number } };
      toReference.push(now() - t);
      if (result.structuredContent?.status !== 'queued') throw new Error('bench: index_url was not queued');
    }

    const tool = sortedOf(viaTool);
    const plain = sortedOf(direct);
    const refs = sortedOf(toReference);
    const extra = percentile(tool, 50) - percentile(plain, 50);
    const p99 = percentile(refs, 99);
    const readOk = extra <= 15;
    const actionOk = p99 < 300;
    console.log(
      `read tool list_audits (50 rows): p50 ${ms(percentile(tool, 50))} vs the gateway read ${ms(percentile(plain, 50))}: +${ms(extra)} (goal ≤ +15 ms) ${readOk ? 'ok' : 'MISSED'}`,
    );
    console.log(
      `action tool index_url → job reference, ${BACKLOG}+ jobs queued ahead: p50 ${ms(percentile(refs, 50))}, p99 ${ms(p99)} (goal p99 < 300 ms) ${actionOk ? 'ok' : 'MISSED'}`,
    );
    console.log(`(${samples} samples each)`);
    const tokens: string[] = [];
    for (let i = 0; i < 5; i++)
      tokens.push(
        (
          await runtime.services.assistantTokens.mint({
            user: ADMIN,
            team: slack.teamId,
            scope: 'read',
            ttlMs: 3_600_000,
          })
        ).secret,
      );
    const floodOk = await floodFigures(
      {
        mcpUrl: `http://127.0.0.1:${runtime.port}/mcp`,
        tokens,
        clientId: CLIENT,
        driver,
        slack,
        user: ADMIN,
        channel: CHANNEL,
        setLatency: (latencyMs) => runtime.sandbox?.setKnobs({ latencyMs }),
      },
      floodCommands,
    );
    return readOk && actionOk && floodOk;
  } finally {
    await client.close().catch(() => {});
    await runtime.stop(5_000);
    await slack.close();
    const redis = createRedis(redisInfo.url);
    await deleteByPrefix(redis, prefix);
    await redis.quit();
    await redisInfo.stop();
  }
}

runIfMain(import.meta.url, main);
