/**
 * The bot as it is deployed: 2 web, 3 worker and 1 scheduler processes (src/main.ts each) on one Redis,
 * mixed commands signed and sent to the web processes in turn while a digest runs every second. Every job is
 * done once, the work is spread across the workers, every command is answered, no scheduled period posts twice. `npm run faults -- --full` runs it with 1,000 commands.
 * The same fleet on a Redis Cluster of 3 masters and 3 replicas, with REDIS_URL at a node that does not own the
 * prefix's slot: the same results and not one MOVED or CROSSSLOT in any process's log.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { type MultiProcessResult, runMultiProcess } from '../fleet/multi-process.js';
import { TEST_REDIS_URL, uniquePrefix } from '../helpers/redis.js';
import { type LocalCluster, startLocalCluster } from '../helpers/redis-cluster.js';

const COMMANDS = 100;

function expectAllDoneOnce(r: MultiProcessResult): void {
  expect(r.crashDetails).toEqual([]);
  expect(r.audit.details).toEqual([]);
  expect(r.audit).toMatchObject({ lost: 0, silent: 0, duplicates: 0, failed: 0, attention: 0 });
  expect(r.audit.done).toBe(r.sizes.actions);
  expect(r.audit.told).toBe(COMMANDS - r.sizes.actions);
  expect(r.maxPostsPerJob).toBe(1);
  expect(r.perWorker).toHaveLength(3);
  expect(r.perWorker.reduce((a, b) => a + b, 0)).toBe(r.sizes.actions);
  for (const jobs of r.perWorker) expect(jobs).toBeGreaterThan(0);
  expect(r.schedulerHealthy).toBe(true);
  expect(r.digestRuns).toBeGreaterThanOrEqual(2);
  expect(r.doubledSchedulerRuns).toBe(0);
  expect(r.blockKit).toBe(0);
  expect(r.unescapedDetails).toEqual([]);
  expect(r.unescaped).toBe(0);
  expect(r.clusterRefusals).toBe(0);
}

describe('2 web, 3 worker and 1 scheduler processes on one Redis', () => {
  it(`runs every job of ${COMMANDS} mixed commands once, spread across the workers`, async () => {
    expectAllDoneOnce(await runMultiProcess(TEST_REDIS_URL, COMMANDS));
  }, 180_000);
});

describe('the same processes on a Redis Cluster (3 masters, 3 replicas)', () => {
  let cluster: LocalCluster | undefined;
  afterAll(async () => {
    await cluster?.stop();
  });

  it(`runs every job of ${COMMANDS} mixed commands once, with no MOVED or CROSSSLOT logged`, async () => {
    cluster = await startLocalCluster();
    // REDIS_URL at a master of other slots: the cluster client must not care where it points.
    const prefix = `{${uniquePrefix('multi')}}`;
    const wrongNode = await cluster.notOwnerOf(prefix);
    const url = `redis://127.0.0.1:${wrongNode.port}`;
    const r = await runMultiProcess(url, COMMANDS, { target: { url, clusterNodes: cluster.nodes }, prefix });
    expectAllDoneOnce(r);
  }, 180_000);
});
