import type { RedisTarget } from '../../src/redis/connection.js';
import { auditJobs, type Sent, toldWhat, waitSettled } from '../fleet/audit.js';
import type { Fleet, FleetOptions } from '../fleet/fleet.js';
import { ACTION_COMMANDS, FLEET_CLIENT, sendAll } from '../fleet/mixed.js';
import { startLocalCluster, startLocalSentinels } from '../helpers/redis-cluster.js';
import { CHANNEL, FAULT_TUNING, type FaultRow, runRow } from './row.js';

/**
 * Redis failing over under the bot: the master that owns the prefix's slot of a Redis Cluster (3 masters, 3
 * replicas, a one-second node timeout) or the Sentinels' primary, SIGKILLed a third of the way into a run of
 * action jobs. The replica is promoted; the bot's clients follow it without a restart. Commands that arrive in
 * the gap are answered (told to try again), the jobs already queued run once, and everything after runs.
 */

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const actionCommand = (i: number, tag: string) => {
  const marker = `${tag}${String(i).padStart(5, '0')}z`;
  const make = ACTION_COMMANDS[i % ACTION_COMMANDS.length];
  if (!make) throw new Error('no action command');
  return { marker, ...make(marker) };
};

function options(name: string, redisTarget: RedisTarget, prefix?: string): FleetOptions {
  return {
    name,
    redisUrl: redisTarget.url,
    redisTarget,
    ...(prefix ? { prefix } : {}),
    web: 1,
    workers: 2,
    tuning: FAULT_TUNING,
    knobs: { latencyMs: 100 },
    env: { GATEWAY_ACTION_TIMEOUT: '1s', LOG_LEVEL: 'info' },
  };
}

/**
 * A third of the jobs before the failover, a third while it runs (not awaited: commands keep coming), the rest
 * once the replica serves. Those last must all be done: the bot followed the failover without a restart.
 */
async function sendThroughFailover(
  fleet: Fleet,
  jobs: number,
  tag: string,
  failover: () => Promise<void>,
): Promise<{ sent: Sent[]; note: () => string; missed: string[] }> {
  const third = Math.ceil(jobs / 3);
  const batch = (from: number, count: number) =>
    sendAll(fleet, count, (i) => actionCommand(from + i, tag), {
      channel: CHANNEL,
      inFlight: 4,
      between: () => sleep(30),
    });
  const before = await batch(0, third);
  const started = Date.now();
  let ended = 0;
  const failing = failover().then(() => {
    ended = Date.now();
  });
  const during = await batch(third, third);
  await failing;
  const after = await batch(2 * third, jobs - 2 * third);
  await waitSettled(fleet, after, 30_000 + after.length * 200);
  const afterAudit = await auditJobs(fleet, after, FLEET_CLIENT);
  const missed =
    afterAudit.done === after.length
      ? []
      : [
          `after the failover only ${afterAudit.done} of ${after.length} jobs were done`,
          ...after
            .map((s) => ({ s, told: toldWhat(fleet.slack, s) }))
            .filter(({ told }) => told.length > 0)
            .slice(0, 5)
            .map(
              ({ s, told }) => `  sent after it, "${s.text}", was told: ${told.join(' / ').slice(0, 300)}`,
            ),
        ];
  const refusals = () => fleet.processes.reduce((sum, p) => sum + p.clusterRefusals, 0);
  return {
    sent: [...before, ...during, ...after],
    note: () =>
      `replica promoted in ${((ended - started) / 1_000).toFixed(1)} s; ${afterAudit.done}/${after.length} sent after it done; MOVED/CROSSSLOT logged ${refusals()}`,
    missed,
  };
}

export async function clusterMasterKilled(jobs: number): Promise<FaultRow> {
  const cluster = await startLocalCluster();
  try {
    const prefix = `{fleet-cluster-${Math.random().toString(36).slice(2, 8)}}`;
    // REDIS_URL at a master of other slots: the cluster client must not care where it points.
    const elsewhere = await cluster.notOwnerOf(prefix);
    const target = { url: `redis://127.0.0.1:${elsewhere.port}`, clusterNodes: cluster.nodes };
    return await runRow(
      'Redis Cluster master SIGKILLed mid-run',
      `${jobs} jobs, 3+3 nodes, 1 failover`,
      options('cluster', target, prefix),
      (fleet) => sendThroughFailover(fleet, jobs, 'cl', () => cluster.failover(prefix)),
      60_000 + jobs * 200,
    );
  } finally {
    await cluster.stop();
  }
}

export async function sentinelPrimaryKilled(jobs: number): Promise<FaultRow> {
  const sentinels = await startLocalSentinels();
  try {
    const target = {
      url: 'redis://127.0.0.1:1',
      sentinels: sentinels.env
        .split(',')
        .map((hp) => ({ host: '127.0.0.1', port: Number(hp.split(':')[1]) })),
      sentinelName: sentinels.name,
    };
    return await runRow(
      'Sentinel primary SIGKILLed mid-run',
      `${jobs} jobs, primary + replica, 1 failover`,
      options('sentinel', target),
      (fleet) => sendThroughFailover(fleet, jobs, 'sn', () => sentinels.failover()),
      60_000 + jobs * 200,
    );
  } finally {
    await sentinels.stop();
  }
}
