/**
 * Approval benchmark (`npx tsx bench/approval.ts`): the time from an Approve click (a signed Slack request to
 * the real bot) to the approved deploy's POST reaching the sandbox gateway, p50 and p99, beside the plain
 * enqueue → POST latency of bench/queue.ts measured in the same run. Goal: at most 10 ms more at p50.
 * The approval path adds the click's HTTP and ack, the person and approver checks, the transition script,
 * the request layer's checks and the worker's approved → running check (taken with its lease). An approved
 * run that starts at once posts no "queued" message before its POST: the card says it, and the worker posts
 * the run's message beside the POST. Both figures are taken on an idle bot (see SETTLE_MS).
 * Everything real and in one process: the bot (runtime.ts, HTTP mode), Redis, the Slack stand-in and the
 * sandbox; the POST is stamped as the sandbox's server receives it (`http.server.request.start`).
 */
import { randomUUID } from 'node:crypto';
import { subscribe } from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';
import { SlackDriver } from '../src/local/driver.js';
import { startFakeSlack } from '../src/local/fake-slack/index.js';
import { ensureRedis } from '../src/local/redis-local.js';
import { silentLogger } from '../src/logger.js';
import { createRedis, deleteByPrefix } from '../src/redis/connection.js';
import { startRuntime } from '../src/runtime.js';
import { BENCH_ADMIN as ADMIN, benchBotConfig, BENCH_SECRET as SECRET } from './bench-bot.js';
import { main as queueBench } from './queue.js';
import { runIfMain } from './run-if-main.js';

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** A pause before each sample, so trailing work of the one before cannot land in it. */
const SETTLE_MS = 30;
const MEMBER = 'UMEMBER';
const CHANNEL = 'CBENCH';

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

interface ApprovalFigures {
  approval: { samples: number; p50Ms: number; p99Ms: number };
  plain: { p50Ms: number; p99Ms: number };
  extraP50Ms: number;
  ok: boolean;
  summary: string;
}

/**
 * Approve click → POST, and, interleaved with it in the same bot (so a busy machine weighs on both alike), the
 * plain enqueue → POST of bench/queue.ts: ActionQueue.enqueue of an unguarded action, its status message
 * already posted.
 */
async function approvalLatencies(samples: number): Promise<{ approval: number[]; plain: number[] }> {
  const redisInfo = await ensureRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const slack = await startFakeSlack();
  const { prefix, config } = benchBotConfig('approval', slack, redisInfo.url, {
    GATEWAY_ACTION_RATE: '10000/1s',
    LOG_LEVEL: 'error',
  });
  const runtime = await startRuntime(config, silentLogger());
  const sandbox = runtime.sandbox;
  if (!sandbox) throw new Error('bench: expected the in-process sandbox');
  const driver = new SlackDriver({
    eventsUrl: `http://127.0.0.1:${runtime.port}/slack/events`,
    signingSecret: SECRET,
    slack,
  });
  let onPost: (at: number) => void = () => {};
  subscribe('http.server.request.start', (message) => {
    const request = (message as { request: IncomingMessage }).request;
    if (request.method === 'POST' && request.socket.localPort === sandbox.port) onPost(now());
  });
  // The previous sample's deploy of the same post may still hold its claim for a moment after its job ended: the
  // bot then answers "the same request is running" instead of a card, and the request is made again.
  const askForCard = async (postId: string) => {
    for (let attempt = 1; ; attempt++) {
      const cards = slack.messages(CHANNEL).length;
      await driver.command(`deploy ${postId}`, { user: MEMBER, channel: CHANNEL });
      const card = await slack
        .waitFor(
          () =>
            slack
              .messages(CHANNEL)
              .slice(cards)
              .find((m) => m.text.startsWith('Approval needed')),
          { what: 'the approval card', timeoutMs: 1_000 },
        )
        .catch((error: unknown) => {
          if (attempt >= 5) throw error;
          return undefined;
        });
      if (card) return card;
      await sleep(200);
    }
  };
  const latencies: number[] = [];
  const plain: number[] = [];
  try {
    await driver.command('use harbor-law', { user: ADMIN, channel: CHANNEL });
    await slack.waitFor(() => slack.messages(CHANNEL).find((m) => m.text.includes('now bound to')), {
      what: 'the binding',
    });
    const postId = String(sandbox.records('harbor-law', 'blogs')[0]?.id);
    const status = await slack.messages(CHANNEL)[0];
    const queue = runtime.services.queue;
    const warmUp = 10;
    for (let i = 0; i < samples + warmUp; i++) {
      const jobKey = `bench-plain-${i}-${randomUUID()}`;
      const posted = new Promise<number>((resolve) => {
        onPost = resolve;
      });
      // Trailing work of the previous sample (the web side's card updates after a click) settles first: both
      // figures are taken on an idle bot.
      await sleep(SETTLE_MS);
      const enqueued = now();
      await queue.enqueue({
        jobKey,
        action: 'index_url',
        clientId: 'harbor-law',
        clientLabel: 'Harbor Law',
        fields: { url: `https://harbor-law.example/page-${i}` },
        replyTo: { kind: 'slack', channel: CHANNEL },
        requestedBy: MEMBER,
        statusTs: String(status?.ts),
        enqueuedAt: Date.now(),
      });
      const postedAt = await posted;
      if (i >= warmUp) plain.push(postedAt - enqueued);
      for (;;) {
        const state = await (await queue.findJob(jobKey))?.getState();
        if (state === 'completed' || state === 'failed') break;
        await sleep(2);
      }

      const card = await askForCard(postId);
      const id = /approval `([a-z0-9]+)`/.exec(JSON.stringify(card.blocks))?.[1] ?? '';
      const arrived = new Promise<number>((resolve) => {
        onPost = resolve;
      });
      await sleep(SETTLE_MS);
      const sent = now();
      await driver.click(card, { actionId: 'approval_approve' }, { user: ADMIN });
      const at = await arrived;
      if (i >= warmUp) latencies.push(at - sent);
      // The run ends before the next request (the approval done, and its job finished: card updated, thread
      // posted), so each click, and the next plain enqueue, meets an idle bot.
      for (;;) {
        const record = await runtime.services.approvals.get(id);
        const ended = record?.state === 'done' || record?.state === 'failed';
        const job = ended && record.jobKey ? await queue.findJob(record.jobKey) : undefined;
        const jobState = await job?.getState();
        if (ended && (jobState === 'completed' || jobState === 'failed')) break;
        await sleep(2);
      }
    }
  } finally {
    await runtime.stop(5_000);
    await slack.close();
    const redis = createRedis(redisInfo.url);
    await deleteByPrefix(redis, prefix).catch(() => {});
    await redis.quit();
    await redisInfo.stop();
  }
  return { approval: latencies.sort((a, b) => a - b), plain: plain.sort((a, b) => a - b) };
}

async function runApprovalBench(samples: number): Promise<ApprovalFigures> {
  // bench/queue.ts's own latency run first, as it prints it; then the interleaved run in the bot.
  const queueRun = await queueBench(['--latency-only']);
  const runs = await approvalLatencies(samples);
  const approval = {
    samples: runs.approval.length,
    p50Ms: percentile(runs.approval, 50),
    p99Ms: percentile(runs.approval, 99),
  };
  const plain = { p50Ms: percentile(runs.plain, 50), p99Ms: percentile(runs.plain, 99) };
  const extraP50Ms = approval.p50Ms - plain.p50Ms;
  const summary =
    `Approve click → POST: p50 ${approval.p50Ms.toFixed(2)} ms, p99 ${approval.p99Ms.toFixed(2)} ms (${approval.samples} clicks)\n` +
    `plain enqueue → POST, interleaved in the same bot: p50 ${plain.p50Ms.toFixed(2)} ms, p99 ${plain.p99Ms.toFixed(2)} ms ` +
    `(bench/queue.ts alone just before: p50 ${queueRun.latency.p50Ms.toFixed(2)} ms, p99 ${queueRun.latency.p99Ms.toFixed(2)} ms)\n` +
    `the approval adds ${extraP50Ms.toFixed(2)} ms at p50 (goal ≤ 10 ms): ${extraP50Ms <= 10 ? 'met' : 'MISSED'}`;
  return { approval, plain, extraP50Ms, ok: extraP50Ms <= 10, summary };
}

/** Entry for `npx tsx bench/approval.ts` and for bench/run-all.ts. */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<ApprovalFigures> {
  const samples = Number(
    /^--samples=(\d+)$/.exec(argv.find((a) => a.startsWith('--samples=')) ?? '')?.[1] ?? 200,
  );
  const figures = await runApprovalBench(samples);
  console.log(figures.summary);
  if (argv.includes('--strict') && !figures.ok) process.exitCode = 1;
  return figures;
}

runIfMain(import.meta.url, () => main());
