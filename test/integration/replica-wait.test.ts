import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis, type Redis } from '../../src/redis/connection.js';
import { ReplicaWait } from '../../src/redis/replica.js';
import { freePorts, RedisProcess, redisCli } from '../helpers/redis-process.js';

/**
 * ReplicaWait against a real primary and replica (redis-server processes of the test's own): an attached
 * replica that is slow to acknowledge (frozen, as on a loaded machine) is waited for past the first timeout, so
 * the job's "posting" checkpoint is on the replica before the POST; a node with no replica is skipped for a
 * while instead of costing every job its timeout.
 */

let primary: RedisProcess;
let replica: RedisProcess;
let alone: RedisProcess;
let redis: Redis;
let aloneRedis: Redis;

beforeAll(async () => {
  const [primaryPort = 0, replicaPort = 0, alonePort = 0] = await freePorts(3);
  primary = RedisProcess.make(primaryPort, [], 'wait-primary');
  replica = RedisProcess.make(replicaPort, ['--replicaof', '127.0.0.1', String(primaryPort)], 'wait-replica');
  alone = RedisProcess.make(alonePort, [], 'wait-alone');
  await Promise.all([primary.start(), replica.start(), alone.start()]);
  for (let i = 0; i < 200; i++) {
    const info = await redisCli(['-p', String(replicaPort), 'info', 'replication']);
    if (info.includes('master_link_status:up')) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  redis = createRedis(`redis://127.0.0.1:${primaryPort}`);
  aloneRedis = createRedis(`redis://127.0.0.1:${alonePort}`);
}, 30_000);

afterAll(async () => {
  redis?.disconnect();
  aloneRedis?.disconnect();
  replica?.freeze(false);
  await Promise.all([primary, replica, alone].map((n) => n?.stop()));
});

/** How many WAIT commands the node at this port has run (its command statistics). */
async function waitCalls(port: number): Promise<number> {
  const stats = await redisCli(['-p', String(port), 'info', 'commandstats']);
  return Number(/cmdstat_wait:calls=(\d+)/.exec(stats)?.[1] ?? 0);
}

describe('ReplicaWait', () => {
  it('waits past its timeout for an attached replica that is slow to acknowledge', async () => {
    // 250 ms, then up to 8 times that (2.25 s in all): the replica thaws at 600 ms, with room for a loaded machine.
    const wait = new ReplicaWait(250);
    replica.freeze(true);
    try {
      await redis.set('replica-wait:key', 'written');
      const started = Date.now();
      setTimeout(() => replica.freeze(false), 600);
      expect(await wait.after(redis, 'replica-wait:key')).toBeGreaterThanOrEqual(1);
      expect(Date.now() - started).toBeGreaterThanOrEqual(550);
    } finally {
      replica.freeze(false);
    }
    // The replica holds the write.
    const port = String(replica.port);
    expect((await redisCli(['-p', port, 'get', 'replica-wait:key'])).trim()).toBe('written');
  });

  it('skips a node with no replica for a while instead of waiting on every write', async () => {
    const wait = new ReplicaWait(100);
    await aloneRedis.set('replica-wait:key', 'written');
    const before = await waitCalls(alone.port);
    expect(await wait.after(aloneRedis, 'replica-wait:key')).toBe(0);
    // The first write asks once (one WAIT, its timeout), and finds no replica.
    expect(await waitCalls(alone.port)).toBe(before + 1);
    // The next one does not ask at all while the node is marked as having none.
    expect(await wait.after(aloneRedis, 'replica-wait:key')).toBe(0);
    expect(await waitCalls(alone.port)).toBe(before + 1);
  });
});
