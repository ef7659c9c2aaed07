/**
 * The action queue on a Redis Cluster beside one Redis, in the same run (`npx tsx bench/queue-cluster.ts`):
 * (a) enqueue → POST at the gateway p50, limiter idle, and (b) the share of GATEWAY_ACTION_RATE a backlog uses
 * (bench/queue.ts measures both), first on one private redis-server, then on a local cluster of 3 masters and 3
 * replicas (test/helpers/redis-cluster.ts) whose master of the queue's slot has a replica to WAIT for. Prints
 * both and their ratio. Goal: the cluster within 2× of one Redis on (a), and the same ≥ 95 % on (b).
 */
import { startLocalCluster } from '../test/helpers/redis-cluster.js';
import { freePorts, RedisProcess } from '../test/helpers/redis-process.js';
import { reportFigures } from './bench-child.js';
import { type QueueFigures, runQueueBench } from './queue.js';
import { runIfMain } from './run-if-main.js';

const SIZES = { samples: 200, backlog: 200 };

function line(name: string, f: QueueFigures): string {
  return `  ${name.padEnd(12)} (a) p50 ${f.latency.p50Ms.toFixed(2)} ms, p99 ${f.latency.p99Ms.toFixed(2)} ms; (b) limit used ${(f.backlog.used * 100).toFixed(1)} %, max ${f.backlog.maxPerWindow} per 1-s window (${f.backlog.jobs} POSTs)`;
}

async function runClusterBench() {
  // A private redis-server for the baseline too: the same machine, no persistence, no one else's load.
  const [port = 0] = await freePorts(1);
  const alone = RedisProcess.make(port, [], 'bench');
  let single: QueueFigures;
  try {
    await alone.start();
    single = await runQueueBench({ ...SIZES, redis: { url: `redis://127.0.0.1:${port}` } });
  } finally {
    await alone.stop();
  }
  const cluster = await startLocalCluster();
  let clustered: QueueFigures;
  try {
    clustered = await runQueueBench({
      ...SIZES,
      redis: { url: 'redis://unused', clusterNodes: cluster.nodes },
    });
  } finally {
    await cluster.stop();
  }
  const ratio = clustered.latency.p50Ms / single.latency.p50Ms;
  const ok = ratio <= 2 && clustered.backlog.used >= 0.95 && clustered.backlog.maxPerWindow <= 20;
  const summary = [
    `Action queue, one Redis beside a Redis Cluster (3 masters, 3 replicas), ${SIZES.samples} samples, backlog ${SIZES.backlog} at 20/1s`,
    line('one Redis', single),
    line('cluster', clustered),
    `  cluster / one Redis: (a) p50 ×${ratio.toFixed(2)} (goal ≤ 2), (b) limit used ${(clustered.backlog.used * 100).toFixed(1)} % vs ${(single.backlog.used * 100).toFixed(1)} % (goal ≥ 95 %)`,
    `  ${ok ? 'all goals met' : 'GOAL MISSED'}`,
  ].join('\n');
  return { single, clustered, ok, summary };
}

/** Entry for `npx tsx bench/queue-cluster.ts` and for bench/run-all.ts. */
export async function main(argv: readonly string[] = process.argv.slice(2)) {
  return reportFigures(await runClusterBench(), argv);
}

runIfMain(import.meta.url, () => main());
