import { Cluster, Redis as IORedis, type RedisOptions } from 'ioredis';

/**
 * Redis connections. Workers need `maxRetriesPerRequest: null` (BullMQ blocks on them); everything else
 * fails fast so a request handler can tell a person that Redis is down instead of hanging.
 *
 * Three forms, chosen by the config (config.ts): one Redis at a URL, a Redis Cluster (ioredis's Cluster client,
 * which follows MOVED/ASK and a replica's promotion), or a primary that Sentinels name (ioredis asks them again
 * after a failover). In every form the URL's user, password and `rediss://` say how to log in.
 */

/** One connection to Redis, whichever the form: both clients speak the same commands. */
export type Redis = IORedis | Cluster;

export interface HostPort {
  host: string;
  port: number;
}

/** Where Redis is and how to log in: what `config.redis` holds (a bare URL is the single form). */
export interface RedisTarget {
  url: string;
  clusterNodes?: readonly HostPort[];
  sentinels?: readonly HostPort[];
  sentinelName?: string | undefined;
  sentinelPassword?: string | undefined;
}

type ConnectOptions = RedisOptions & { blocking?: boolean };

/** The user, password and TLS of a `redis[s]://user:password@host` URL (host and port are the single form's). */
function loginOf(url: string): Pick<RedisOptions, 'username' | 'password' | 'tls'> {
  const parsed = new URL(url);
  const login: Pick<RedisOptions, 'username' | 'password' | 'tls'> = {};
  if (parsed.username) login.username = decodeURIComponent(parsed.username);
  if (parsed.password) login.password = decodeURIComponent(parsed.password);
  if (parsed.protocol === 'rediss:') login.tls = {};
  return login;
}

export function createRedis(target: string | RedisTarget, options: ConnectOptions = {}): Redis {
  const { blocking, ...rest } = options;
  const base: RedisOptions = {
    maxRetriesPerRequest: blocking ? null : 3,
    enableReadyCheck: true,
    lazyConnect: false,
    // A primary demoted to a replica (a failover that kept it alive) answers READONLY: reconnect, which asks
    // the Sentinels (or DNS, for a hosted endpoint) where the primary is now, and resend the command.
    reconnectOnError: (error) => (error.message.startsWith('READONLY') ? 2 : false),
    ...rest,
  };
  const form = typeof target === 'string' ? { url: target } : target;
  if (form.clusterNodes?.length) {
    const { lazyConnect, ...redisOptions } = { ...base, ...loginOf(form.url) };
    return new Cluster([...form.clusterNodes], {
      lazyConnect: lazyConnect ?? false,
      enableReadyCheck: true,
      // A failover or reshard answers MOVED/ASK/CLUSTERDOWN for a moment: follow it, and retry a little while
      // the replica is promoted, before a command fails to its caller.
      maxRedirections: 32,
      retryDelayOnFailover: 200,
      retryDelayOnClusterDown: 200,
      retryDelayOnTryAgain: 200,
      slotsRefreshTimeout: 2_000,
      redisOptions,
      // Hosted clusters with TLS present certificates for their names, not the addresses they resolve to.
      ...(redisOptions.tls ? { dnsLookup: (address, callback) => callback(null, address) } : {}),
    });
  }
  if (form.sentinels?.length) {
    const login = loginOf(form.url);
    return new IORedis({
      ...base,
      ...login,
      sentinels: [...form.sentinels],
      name: form.sentinelName ?? 'mymaster',
      ...(form.sentinelPassword ? { sentinelPassword: form.sentinelPassword } : {}),
      ...(login.tls ? { enableTLSForSentinelMode: true, sentinelTLS: {} } : {}),
      // Not ioredis's failoverDetector: its disconnect on +switch-master can land while a reconnect asks the
      // Sentinels, and that ends the client for good (seen in the fault suite). A lost connection is enough.
    });
  }
  return new IORedis(form.url, base);
}

/** True when the connection is one to a Redis Cluster. */
function isCluster(redis: Redis): redis is Cluster {
  return redis instanceof Cluster;
}

/**
 * Deletes every key under a prefix (tests and the demo clean up after themselves with it). SCAN answers for one
 * node only, so on a cluster every master is scanned, and keys are unlinked one by one (a multi-key UNLINK of
 * keys in different slots is refused there even on one node).
 */
export async function deleteByPrefix(redis: Redis, prefix: string): Promise<number> {
  const nodes = isCluster(redis) ? redis.nodes('master') : [redis];
  let deleted = 0;
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (!keys.length) continue;
      if (isCluster(redis)) {
        const pipeline = node.pipeline();
        for (const key of keys) pipeline.unlink(key);
        for (const [error, count] of (await pipeline.exec()) ?? []) if (!error) deleted += Number(count);
      } else deleted += await node.unlink(...keys);
    } while (cursor !== '0');
  }
  return deleted;
}

/** Redis's own error replies that mean "this node cannot do it": the health checks and metrics name them. */
const REPLY_KINDS = [
  'MOVED',
  'ASK',
  'CROSSSLOT',
  'READONLY',
  'NOAUTH',
  'NOPERM',
  'WRONGPASS',
  'CLUSTERDOWN',
  'TRYAGAIN',
  'LOADING',
  'MASTERDOWN',
  'OOM',
] as const;

/** A bounded name for a Redis error (a label value): its reply's first word, `connection` or `other`. */
export function redisErrorKind(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const word = /^[A-Z]+/.exec(message)?.[0];
  if (word && (REPLY_KINDS as readonly string[]).includes(word)) return word;
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return 'connection';
  if (/connection|closed|timed? ?out|max retries/i.test(message)) return 'connection';
  return 'other';
}
