import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HostPort } from '../../src/redis/connection.js';
import { freePorts, RedisProcess, redisCli } from './redis-process.js';

/**
 * A local Redis Cluster of 3 masters and 3 replicas (`redis-server --cluster-enabled yes`, then
 * `redis-cli --cluster create … --cluster-replicas 1`), and a Sentinel set-up (a primary, a replica and three
 * Sentinels): what tests run the bot on, kill a master of, and tear down. No persistence; short node and
 * down-after timeouts so a failover takes a second or two.
 */

const CLUSTER_NODE_TIMEOUT_MS = 1_000;

/**
 * An ACL user every data node has besides `default` (which stays open for redis-cli and replication): what a
 * managed Redis gives the bot. `redis://bot:<password>@…` logs in as it.
 */
export const LOCAL_ACL = { user: 'bot', password: 'acl-s3cret' } as const;
const ACL_ARGS = ['--user', LOCAL_ACL.user, 'on', `>${LOCAL_ACL.password}`, '~*', '&*', '+@all'];

export interface LocalCluster {
  nodes: HostPort[];
  /** `REDIS_CLUSTER_NODES` for them. */
  env: string;
  /** The master that owns the key's slot (its hash tag's). */
  masterOf(key: string): Promise<RedisProcess>;
  /** The replica of the master that owns the key's slot. */
  replicaOf(key: string): Promise<RedisProcess>;
  /** A node that does not own the key's slot (a master of another slot range). */
  notOwnerOf(key: string): Promise<RedisProcess>;
  /** SIGKILLs the master owning the key's slot and resolves once a replica serves the slot as master. */
  failover(key: string): Promise<void>;
  stop(): Promise<void>;
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`local redis: ${what} within ${timeoutMs} ms did not happen`);
}

/** Who serves a slot as master now, asked of any live node (`CLUSTER SHARDS` is 7.0+; `CLUSTER SLOTS` is older). */
async function masterPortOf(live: RedisProcess[], slot: number): Promise<number | undefined> {
  for (const node of live) {
    const out = await redisCli(['-p', String(node.port), 'cluster', 'slots']).catch(() => '');
    const lines = out.trim().split('\n');
    // Each range: start, end, then host, port, id (and maybe a hostname block) per node, master first.
    for (let i = 0; i + 4 < lines.length; i++) {
      const start = Number(lines[i]);
      const end = Number(lines[i + 1]);
      if (Number.isInteger(start) && Number.isInteger(end) && start <= slot && slot <= end) {
        const port = Number(lines[i + 3]);
        if (port > 0) return port;
      }
    }
  }
  return undefined;
}

export async function startLocalCluster(): Promise<LocalCluster> {
  const ports = await freePorts(6, 10_000);
  const nodes = ports.map((port) =>
    RedisProcess.make(
      port,
      [
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        'nodes.conf',
        '--cluster-node-timeout',
        String(CLUSTER_NODE_TIMEOUT_MS),
        // A replica takes over however long it was cut off (the test kills masters on purpose).
        '--cluster-replica-validity-factor',
        '0',
        // A replica's first sync starts at once (Redis waits 5 s by default to batch replicas).
        '--repl-diskless-sync-delay',
        '0',
        ...ACL_ARGS,
      ],
      'cluster',
    ),
  );
  const stop = async () => {
    await Promise.all(nodes.map((n) => n.stop()));
  };
  try {
    await Promise.all(nodes.map((n) => n.start()));
    await redisCli([
      '--cluster',
      'create',
      ...ports.map((p) => `127.0.0.1:${p}`),
      '--cluster-replicas',
      '1',
      '--cluster-yes',
    ]);
    await waitFor('every node says cluster_state:ok', async () => {
      const states = await Promise.all(ports.map((p) => redisCli(['-p', String(p), 'cluster', 'info'])));
      return states.every((s) => s.includes('cluster_state:ok'));
    });
    // A replica still waiting for its first sync holds nothing: a master killed then would take every key
    // with it. Every replica must be linked and in sync before a test writes.
    await waitFor('every replica is in sync with its master', async () => {
      const infos = await Promise.all(ports.map((p) => redisCli(['-p', String(p), 'info', 'replication'])));
      const replicas = infos.filter((i) => i.includes('role:slave'));
      return replicas.length === 3 && replicas.every((i) => i.includes('master_link_status:up'));
    });
  } catch (error) {
    await stop();
    throw error;
  }
  const live = () => nodes.filter((n) => n.running);
  // Any live node answers, but one a test has locked with a password answers NOAUTH: ask the next.
  const slotOf = async (key: string) => {
    for (const n of live()) {
      const slot = Number((await redisCli(['-p', String(n.port), 'cluster', 'keyslot', key])).trim());
      if (Number.isInteger(slot)) return slot;
    }
    throw new Error(`local cluster: no live node answers CLUSTER KEYSLOT ${key}`);
  };
  const masterOf = async (key: string) => {
    const slot = await slotOf(key);
    const port = await masterPortOf(live(), slot);
    const node = nodes.find((n) => n.port === port);
    if (!node) throw new Error(`local cluster: no master serves slot ${slot}`);
    return node;
  };
  return {
    nodes: ports.map((port) => ({ host: '127.0.0.1', port })),
    env: ports.map((p) => `127.0.0.1:${p}`).join(','),
    masterOf,
    async replicaOf(key) {
      const owner = await masterOf(key);
      for (const n of live()) {
        const role = (await redisCli(['-p', String(n.port), 'role'])).split('\n');
        if (role[0] === 'slave' && Number(role[2]) === owner.port) return n;
      }
      throw new Error(`local cluster: the master on ${owner.port} has no replica`);
    },
    async notOwnerOf(key) {
      const owner = await masterOf(key);
      const roles = await Promise.all(
        live().map(async (n) => ({ n, role: await redisCli(['-p', String(n.port), 'role']) })),
      );
      const other = roles.find(({ n, role }) => n !== owner && role.startsWith('master'))?.n;
      if (!other) throw new Error('local cluster: every master owns the slot?');
      return other;
    },
    async failover(key) {
      const slot = await slotOf(key);
      const owner = await masterOf(key);
      await owner.kill('SIGKILL');
      await waitFor(`a replica serves slot ${slot}`, async () => {
        const port = await masterPortOf(live(), slot);
        if (!port || port === owner.port) return false;
        const info = await redisCli(['-p', String(port), 'cluster', 'info']);
        return info.includes('cluster_state:ok');
      });
    },
    stop,
  };
}

export interface LocalSentinels {
  /** `REDIS_SENTINELS` for them. */
  env: string;
  name: string;
  primary(): Promise<RedisProcess>;
  /** The data node that is not the primary. */
  replica(): Promise<RedisProcess>;
  /** SIGKILLs the primary and resolves once the Sentinels name the replica as the new primary. */
  failover(): Promise<void>;
  stop(): Promise<void>;
}

/** A primary, one replica and three Sentinels (quorum 2), a one-second down-after. */
export async function startLocalSentinels(name = 'gwprimary'): Promise<LocalSentinels> {
  const [primaryPort, replicaPort, ...sentinelPorts] = await freePorts(5);
  if (!primaryPort || !replicaPort) throw new Error('no ports');
  const primary = RedisProcess.make(primaryPort, ACL_ARGS, 'primary');
  const replica = RedisProcess.make(
    replicaPort,
    ['--replicaof', '127.0.0.1', String(primaryPort), ...ACL_ARGS],
    'replica',
  );
  const sentinels = sentinelPorts.map((port) => RedisProcess.make(port, ['--sentinel'], 'sentinel'));
  const data = [primary, replica];
  const stop = async () => {
    await Promise.all([...data, ...sentinels].map((n) => n.stop()));
  };
  try {
    await Promise.all(data.map((n) => n.start()));
    await Promise.all(
      sentinels.map((s) => {
        // Sentinel rewrites its config file, so each has its own, in its own directory.
        const file = join(s.dir, 'sentinel.conf');
        writeFileSync(
          file,
          [
            `sentinel monitor ${name} 127.0.0.1 ${primaryPort} 2`,
            `sentinel down-after-milliseconds ${name} 1000`,
            `sentinel failover-timeout ${name} 5000`,
            `sentinel parallel-syncs ${name} 1`,
            '',
          ].join('\n'),
        );
        return s.start(file);
      }),
    );
    await waitFor('the replica is in sync and the Sentinels see it', async () => {
      const info = await redisCli(['-p', String(replicaPort), 'info', 'replication']);
      const seen = await redisCli(['-p', String(sentinelPorts[0]), 'sentinel', 'replicas', name]);
      return info.includes('master_link_status:up') && seen.includes(String(replicaPort));
    });
  } catch (error) {
    await stop();
    throw error;
  }
  const primaryPortNow = async () => {
    for (const s of sentinels.filter((n) => n.running)) {
      const out = await redisCli(['-p', String(s.port), 'sentinel', 'get-master-addr-by-name', name]).catch(
        () => '',
      );
      const port = Number(out.trim().split('\n')[1]);
      if (port > 0) return port;
    }
    return undefined;
  };
  const primaryNow = async () => {
    const port = await primaryPortNow();
    const node = data.find((n) => n.port === port);
    if (!node) throw new Error('local sentinels: no primary');
    return node;
  };
  return {
    env: sentinelPorts.map((p) => `127.0.0.1:${p}`).join(','),
    name,
    primary: primaryNow,
    async replica() {
      const primaryNode = await primaryNow();
      const other = data.find((n) => n !== primaryNode && n.running);
      if (!other) throw new Error('local sentinels: no replica');
      return other;
    },
    async failover() {
      const old = await primaryNow();
      await old.kill('SIGKILL');
      await waitFor('the Sentinels promote the replica', async () => {
        const port = await primaryPortNow();
        if (!port || port === old.port) return false;
        const role = await redisCli(['-p', String(port), 'role']);
        return role.startsWith('master');
      });
    },
    stop,
  };
}
