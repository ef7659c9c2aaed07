import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

/**
 * Redis is the one outside part. Where nothing answers at REDIS_URL, the demo and the tests
 * start a private redis-server (no persistence, a free port) when the binary is installed.
 */

export async function redisAnswers(url: string, timeoutMs = 1_500): Promise<boolean> {
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: timeoutMs,
    retryStrategy: () => null,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/** A free loopback port (the OS picks it; free again once this resolves). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface PrivateRedis {
  url: string;
  stop(): Promise<void>;
}

const REDIS_INSTALL_HINT =
  'No Redis answers and redis-server is not installed. Install it (apt-get install redis-server, brew install redis) or point REDIS_URL at one.';

/** Returns the URL of a Redis that answers: the given one, or a private redis-server started here. */
export async function ensureRedis(url: string): Promise<PrivateRedis> {
  if (await redisAnswers(url)) return { url, stop: async () => {} };
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'gateway-bot-redis-'));
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    {
      stdio: 'ignore',
    },
  );
  const spawned = await new Promise<boolean>((resolve) => {
    child.once('error', () => resolve(false));
    child.once('spawn', () => resolve(true));
  });
  if (!spawned) throw new Error(REDIS_INSTALL_HINT);
  const privateUrl = `redis://127.0.0.1:${port}`;
  for (let i = 0; i < 50; i++) {
    if (await redisAnswers(privateUrl, 200)) {
      return {
        url: privateUrl,
        stop: async () => {
          child.kill('SIGTERM');
        },
      };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`redis-server started on port ${port} but did not answer`);
}
