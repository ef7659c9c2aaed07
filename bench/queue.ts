/**
 * Action queue benchmark (`npx tsx bench/queue.ts`):
 * (a) latency from `enqueue()` to the POST reaching the gateway, limiter idle (goal p50 < 5 ms on loopback);
 * (b) a backlog of 500 jobs at GATEWAY_ACTION_RATE 20/1s: POSTs per 1-second window at the gateway (goal:
 *     never over 20) and the share of the limit used (goal ≥ 95 %).
 * Everything real and in one process, so one high-resolution clock (performance.timeOrigin + now()) stamps
 * both sides: the sandbox gateway, a fake Slack, Redis, the queue and its workers. The POST's arrival is
 * stamped by Node's `http.server.request.start` diagnostics channel, as the sandbox's server receives it.
 */

import { randomUUID } from 'node:crypto';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';
import { startActionWorkers } from '../src/jobs/action-worker.js';
import type { ActionJobData } from '../src/jobs/job-data.js';
import { ActionQueue } from '../src/jobs/queue.js';
import { silentLogger } from '../src/logger.js';
import { deleteByPrefix, type RedisTarget } from '../src/redis/connection.js';
import { replicaWaitMs } from '../src/redis/replica.js';
import { slackReplyTarget } from '../src/slack/reply-target.js';
import { createSlackPoster } from '../src/slack/slack-poster.js';
import { reportFigures } from './bench-child.js';
import { startQueueParts } from './queue-parts.js';
import { runIfMain } from './run-if-main.js';

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface QueueFigures {
  latency: { samples: number; p50Ms: number; p99Ms: number; maxMs: number };
  backlog: {
    jobs: number;
    rate: string;
    windows: number[];
    maxPerWindow: number;
    used: number;
    seconds: number;
  };
  ok: boolean;
  summary: string;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

export async function runQueueBench(
  options: { samples?: number; backlog?: number; redis?: RedisTarget } = {},
): Promise<QueueFigures> {
  const samples = options.samples ?? 300;
  const backlogJobs = options.backlog ?? 500;
  const parts = await startQueueParts(options.redis);
  const { connection, sandbox, web, gateway, catalogue, redis } = parts;
  // On a cluster every key of a queue must share one slot: the prefix is a hash tag there.
  const tagged = !!options.redis?.clusterNodes?.length;
  // … and the bot waits for a replica before "queued" and before each POST, as in production.
  const waitMs = replicaWaitMs(tagged ? 'cluster' : 'single');
  const prefixes: string[] = [];

  // Arrival stamps of POSTs at the sandbox.
  let onPost: (at: number) => void = () => {};
  const hook = (message: unknown) => {
    const request = (message as { request: IncomingMessage }).request;
    if (request.method === 'POST' && request.socket.localPort === sandbox.port) onPost(now());
  };
  subscribe('http.server.request.start', hook);

  const setUp = (rate: { max: number; windowMs: number }) => {
    const name = `bench-queue-${randomUUID().slice(0, 8)}`;
    const prefix = tagged ? `{${name}}` : name;
    prefixes.push(prefix);
    const queue = new ActionQueue({ connection: redis, prefix, replicaWaitMs: waitMs });
    const start = () =>
      startActionWorkers({
        connection,
        prefix,
        gateway,
        outbound: createSlackPoster(web),
        catalogue: () => catalogue,
        rate,
        actionTimeoutMs: 10_000,
        concurrency: 5,
        replicaWaitMs: waitMs,
        logger: silentLogger(),
      });
    return { queue, start };
  };
  const status = await web.chat.postMessage({ channel: 'CBENCH', text: 'bench' });
  const job = (prefix: string, i: number): ActionJobData => ({
    jobKey: `${prefix}-${i}-${randomUUID()}`,
    action: 'seo_audit',
    clientId: 'acme-plumbing',
    clientLabel: 'Acme Plumbing',
    fields: { url: `https://acmeplumbing.example/page-${i}` },
    replyTo: slackReplyTarget('CBENCH'),
    requestedBy: 'UBENCH',
    statusTs: String(status.ts),
    enqueuedAt: Date.now(),
  });

  try {
    // (a) one job at a time, each to completion, so the limiter and the workers are idle at each enqueue.
    const a = setUp({ max: 10_000, windowMs: 1_000 });
    const aWorkers = a.start();
    await aWorkers.worker.waitUntilReady();
    const latencies: number[] = [];
    const warmUp = 20;
    for (let i = 0; i < samples + warmUp; i++) {
      const data = job('a', i);
      const arrived = new Promise<number>((resolve) => {
        onPost = resolve;
      });
      const sent = now();
      await a.queue.enqueue(data);
      const at = await arrived;
      if (i >= warmUp) latencies.push(at - sent);
      // Let the job finish (Slack replies included) before the next enqueue.
      for (;;) {
        const state = await (await a.queue.findJob(data.jobKey))?.getState();
        if (state === 'completed' || state === 'failed') break;
        await sleep(1);
      }
    }
    await aWorkers.close();
    await a.queue.close();
    latencies.sort((x, y) => x - y);

    if (backlogJobs === 0) {
      const latency = {
        samples: latencies.length,
        p50Ms: percentile(latencies, 50),
        p99Ms: percentile(latencies, 99),
        maxMs: latencies.at(-1) ?? Number.NaN,
      };
      const summary = `Action queue (a) only: p50 ${latency.p50Ms.toFixed(2)} ms, p99 ${latency.p99Ms.toFixed(2)} ms`;
      const backlog = { jobs: 0, rate: '20/1s', windows: [], maxPerWindow: 0, used: 0, seconds: 0 };
      return { latency, backlog, ok: latency.p50Ms < 5, summary };
    }

    // (b) a backlog of 500 at 20/1s: enqueue everything first, then start the workers.
    const b = setUp({ max: 20, windowMs: 1_000 });
    for (let i = 0; i < backlogJobs; i++) await b.queue.enqueue(job('b', i));
    const arrivals: number[] = [];
    onPost = (at) => arrivals.push(at);
    const bWorkers = b.start();
    const deadline = now() + 60_000;
    while (arrivals.length < backlogJobs && now() < deadline) await sleep(50);
    await sleep(200);
    await bWorkers.close();
    await b.queue.close();

    const t0 = arrivals[0] ?? 0;
    const windows: number[] = [];
    for (const at of arrivals) {
      const k = Math.floor((at - t0) / 1_000);
      windows[k] = (windows[k] ?? 0) + 1;
    }
    const filled = Array.from(windows, (n) => n ?? 0);
    const maxPerWindow = Math.max(...filled);
    const used = arrivals.length / (filled.length * 20);
    const seconds = ((arrivals.at(-1) ?? t0) - t0) / 1_000;

    const latency = {
      samples: latencies.length,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      maxMs: latencies.at(-1) ?? Number.NaN,
    };
    const backlog = { jobs: arrivals.length, rate: '20/1s', windows: filled, maxPerWindow, used, seconds };
    const ok = latency.p50Ms < 5 && maxPerWindow <= 20 && used >= 0.95;
    const summary = [
      'Action queue',
      `  (a) enqueue → POST at the gateway, limiter idle, ${latency.samples} samples: p50 ${latency.p50Ms.toFixed(2)} ms, p99 ${latency.p99Ms.toFixed(2)} ms, max ${latency.maxMs.toFixed(2)} ms (goal p50 < 5 ms)`,
      `  (b) backlog ${backlogJobs} at 20/1s: ${arrivals.length} POSTs in ${seconds.toFixed(1)} s; per 1-s window: max ${maxPerWindow} (goal ≤ 20), limit used ${(used * 100).toFixed(1)} % over ${filled.length} windows (goal ≥ 95 %)`,
      `      windows: ${filled.join(' ')}`,
      `  ${ok ? 'all goals met' : 'GOAL MISSED'}`,
    ].join('\n');
    return { latency, backlog, ok, summary };
  } finally {
    unsubscribe('http.server.request.start', hook);
    for (const prefix of prefixes) await deleteByPrefix(redis, prefix);
    await parts.close();
  }
}

/** Entry for `npx tsx bench/queue.ts` and for bench/run-all.ts. */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<QueueFigures> {
  return reportFigures(await runQueueBench(argv.includes('--latency-only') ? { backlog: 0 } : {}), argv);
}

runIfMain(import.meta.url, () => main());
