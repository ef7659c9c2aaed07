/**
 * The bot on a local Redis Cluster (3 masters, 3 replicas) and on a Sentinel-managed primary: health that
 * tells a node that refuses the bot's keys from one that takes them, the cluster client that follows the slot
 * wherever REDIS_URL points, clean-up that reaches every master, and a Sentinel failover followed without a
 * restart.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis, deleteByPrefix, type Redis } from '../../src/redis/connection.js';
import { ReplicaWait } from '../../src/redis/replica.js';
import type { Runtime } from '../../src/runtime.js';
import { claimOnceReading } from '../../src/store/claims.js';
import { uniquePrefix } from '../helpers/redis.js';
import {
  LOCAL_ACL,
  type LocalCluster,
  type LocalSentinels,
  startLocalCluster,
  startLocalSentinels,
} from '../helpers/redis-cluster.js';
import { redisCli } from '../helpers/redis-process.js';
import { type RoleFleet, startRoleFleet } from '../helpers/role-fleet.js';

const get = async (runtime: Runtime, path: string) => {
  const res = await request(`http://127.0.0.1:${runtime.port}${path}`);
  return { status: res.statusCode, body: await res.body.text() };
};

/** `REDIS_URL` in the Cluster and Sentinel forms: only its user, password and scheme count. */
const ACL_URL = `redis://${LOCAL_ACL.user}:${LOCAL_ACL.password}@127.0.0.1:1`;

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('on a Redis Cluster', () => {
  let cluster: LocalCluster;
  let fleet: RoleFleet;
  const prefix = `{${uniquePrefix('cluster')}}`;

  /** /healthz of a worker on the cluster with this REDIS_URL (0: it did not start). */
  async function healthWith(nodes: string, url: string): Promise<number> {
    const other = await startRoleFleet('cluster-login', {
      sandboxLatencyMs: 0,
      env: { REDIS_CLUSTER_NODES: nodes, REDIS_PREFIX: prefix, REDIS_URL: url },
    });
    try {
      return await other.start('worker').then(
        async (runtime) => (await get(runtime, '/healthz')).status,
        () => 0,
      );
    } finally {
      await other.close();
    }
  }

  beforeAll(async () => {
    cluster = await startLocalCluster();
    const wrongNode = await cluster.notOwnerOf(`${prefix}:x`);
    fleet = await startRoleFleet('cluster', {
      sandboxLatencyMs: 0,
      env: { REDIS_URL: `redis://127.0.0.1:${wrongNode.port}`, REDIS_PREFIX: prefix },
    });
  }, 60_000);
  afterAll(async () => {
    await fleet?.close();
    await cluster?.stop();
  });

  it('is unhealthy with one connection at a node that does not own the slot, and says why', async () => {
    const runtime = await fleet.start('worker');
    const health = await get(runtime, '/healthz');
    expect(health.status).toBe(503);
    expect(JSON.parse(health.body)).toEqual({ ok: false, redis: 'refusing (MOVED)' });
    const ready = await get(runtime, '/readyz');
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.body)).toMatchObject({ ok: false, redis: 'refusing (MOVED)' });
    // The workers' own loop hits the same refusal, and /metrics counts it.
    await until('a worker error counted', async () => {
      const text = (await get(runtime, '/metrics')).body;
      return /gateway_bot_worker_errors_total\{queue="\w+",kind="MOVED"\} [1-9]/.test(text) || undefined;
    });
    await runtime.stop(5_000);
  });

  it('is healthy with REDIS_CLUSTER_NODES whatever node REDIS_URL names, logged in as its ACL user', async () => {
    expect(await healthWith(cluster.env, `redis://${LOCAL_ACL.user}:wrong@127.0.0.1:1`)).not.toBe(200);
    const onCluster = await startRoleFleet('cluster-ok', {
      sandboxLatencyMs: 0,
      env: { REDIS_CLUSTER_NODES: cluster.env, REDIS_PREFIX: prefix, REDIS_URL: ACL_URL },
    });
    try {
      const worker = await onCluster.start('worker');
      const health = await get(worker, '/healthz');
      expect(JSON.parse(health.body)).toEqual({ ok: true, redis: 'ok' });
      expect(health.status).toBe(200);
      // BullMQ's scripts read several keys at once: on the cluster they share the prefix's slot (no CROSSSLOT).
      expect(await worker.services.queue.queue.getJobCounts('waiting', 'delayed')).toEqual({
        waiting: 0,
        delayed: 0,
      });
    } finally {
      await onCluster.close();
    }
  });

  it('keeps a write through a master SIGKILL only when a replica acknowledged it first', async () => {
    const redis = createRedis({ url: 'redis://x', clusterNodes: cluster.nodes });
    try {
      const lostKey = `{${uniquePrefix('lost')}}:write`;
      const lost = await survivesFailover(redis, lostKey, cluster, undefined);
      expect(lost).toBe(false);
      // The replica promoted above has no replica of its own: the kept write needs a master that still has one.
      let keptKey = `{${uniquePrefix('kept')}}:write`;
      while (!(await cluster.replicaOf(keptKey).catch(() => undefined)))
        keptKey = `{${uniquePrefix('kept')}}:write`;
      const kept = await survivesFailover(redis, keptKey, cluster, new ReplicaWait(10_000));
      expect(kept).toBe(true);
    } finally {
      redis.disconnect();
    }
  }, 60_000);

  it('claims a command and reads a binding that lives on another master', async () => {
    const redis = createRedis({ url: 'redis://x', clusterNodes: cluster.nodes });
    // No hash tag: the claim and the hash land in different slots, on different masters.
    const scattered = uniquePrefix('claim');
    const claimMaster = (await cluster.masterOf(`${scattered}:dedupe:cmd:T1`)).port;
    let hashKey = `${scattered}-binding-0`;
    for (let i = 1; (await cluster.masterOf(hashKey)).port === claimMaster; i++)
      hashKey = `${scattered}-binding-${i}`;
    try {
      await redis.hset(hashKey, { clientId: 'acme-plumbing' });
      const first = await claimOnceReading(redis, scattered, 'cmd:T1', 5, hashKey);
      expect(first).toEqual({ claimed: true, hash: { clientId: 'acme-plumbing' } });
      expect((await claimOnceReading(redis, scattered, 'cmd:T1', 5, hashKey)).claimed).toBe(false);
    } finally {
      await deleteByPrefix(redis, scattered);
      redis.disconnect();
    }
  });

  it('deletes a prefix from every master (SCAN answers for one node only)', async () => {
    const redis = createRedis({ url: 'redis://x', clusterNodes: cluster.nodes });
    try {
      // No hash tag here: these keys spread over the slots, so over the three masters.
      const scanned = uniquePrefix('scan');
      const keys = Array.from({ length: 12 }, (_, i) => `${scanned}-${i}`);
      for (const key of keys) await redis.set(key, '1');
      const masters = new Set(await Promise.all(keys.map(async (k) => (await cluster.masterOf(k)).port)));
      expect(masters.size).toBe(3);
      expect(await deleteByPrefix(redis, scanned)).toBe(12);
      for (const key of keys) expect(await redis.exists(key)).toBe(0);
    } finally {
      redis.disconnect();
    }
  });
});

describe('on a Sentinel-managed primary', () => {
  let sentinels: LocalSentinels;
  let fleet: RoleFleet;

  beforeAll(async () => {
    sentinels = await startLocalSentinels();
    fleet = await startRoleFleet('sentinel', {
      sandboxLatencyMs: 0,
      env: {
        REDIS_SENTINELS: sentinels.env,
        REDIS_SENTINEL_NAME: sentinels.name,
        REDIS_URL: ACL_URL,
      },
    });
  }, 60_000);
  afterAll(async () => {
    await fleet?.close();
    await sentinels?.stop();
  });

  it('logs in as its ACL user (a wrong password is not healthy)', async () => {
    const wrong = await startRoleFleet('sentinel-wrong', {
      sandboxLatencyMs: 0,
      env: {
        REDIS_SENTINELS: sentinels.env,
        REDIS_SENTINEL_NAME: sentinels.name,
        REDIS_URL: `redis://${LOCAL_ACL.user}:wrong@127.0.0.1:1`,
      },
    });
    try {
      const status = await wrong.start('worker').then(
        async (runtime) => (await get(runtime, '/healthz')).status,
        () => 0,
      );
      expect(status).not.toBe(200);
    } finally {
      await wrong.close();
    }
  });

  it('follows a failover without a restart: unhealthy in the gap, healthy on the new primary', async () => {
    const runtime = await fleet.start('worker');
    expect((await get(runtime, '/healthz')).status).toBe(200);
    const before = (await sentinels.primary()).port;
    await sentinels.failover();
    expect((await sentinels.primary()).port).not.toBe(before);
    await until('healthy on the new primary', async () =>
      (await get(runtime, '/healthz')).status === 200 ? true : undefined,
    );
    expect(await runtime.services.queue.queue.getJobCounts('waiting')).toEqual({ waiting: 0 });
    await runtime.stop(5_000);
  }, 60_000);
});

/**
 * A write acknowledged by the primary alone is lost when the primary dies before its replica has it.
 * - Without a wait, the primary cuts its replica off just before the write (a password the replica lacks, its
 *   link dropped) and is killed right after it, and the replica takes over: the write is gone.
 * - With ReplicaWait (what the bot does before a POST and before "queued"), the replica is frozen (SIGSTOP: its
 *   link stays up but it reads nothing) before the write and thawed while the wait runs: the wait returns only
 *   once the replica has the write, and it survives the failover. Freezing rather than cutting off keeps a
 *   resync, whose timing the machine's load decides, out of the test.
 */
async function survivesFailover(
  redis: Redis,
  key: string,
  cluster: LocalCluster,
  wait: ReplicaWait | undefined,
): Promise<boolean> {
  const primary = await cluster.masterOf(key);
  // The client's connection to the node exists before the cut-off (it stays logged in).
  await redis.exists(key);
  if (wait) {
    const replica = await cluster.replicaOf(key);
    replica.freeze(true);
    try {
      await redis.set(key, 'written');
      const thaw = new Promise((r) => setTimeout(r, 300)).then(() => replica.freeze(false));
      expect(await wait.after(redis, key)).toBeGreaterThanOrEqual(1);
      await thaw;
    } finally {
      replica.freeze(false);
    }
  } else {
    await redisCli(['-p', String(primary.port), 'config', 'set', 'requirepass', 'cut-off']);
    await redisCli([
      '-p',
      String(primary.port),
      '-a',
      'cut-off',
      '--no-auth-warning',
      'client',
      'kill',
      'type',
      'replica',
    ]);
    await redis.set(key, 'written');
  }
  await cluster.failover(key);
  const [value] = await until('the key is readable after the failover', async () => [await redis.get(key)]);
  return value === 'written';
}
