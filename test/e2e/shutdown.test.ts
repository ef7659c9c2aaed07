import type { AddressInfo } from 'node:net';
import { createServer, type Socket, connect as tcpConnect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { bind, type Harness, startHarness } from '../helpers/bot-harness.js';
import { TEST_REDIS_URL, testRedis } from '../helpers/redis.js';

/**
 * A TCP relay in front of the real Redis that can go silent: connections stay open and nothing more passes,
 * which is what a Redis that stopped answering looks like to its clients (BullMQ's close then waits).
 */
async function silenceableRedis() {
  const target = new URL(TEST_REDIS_URL);
  const sockets = new Set<Socket>();
  let silent = false;
  const server = createServer((client) => {
    const upstream = tcpConnect(Number(target.port || 6379), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => {});
    }
    client.on('data', (d) => silent || upstream.write(d));
    upstream.on('data', (d) => silent || client.write(d));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `redis://127.0.0.1:${(server.address() as AddressInfo).port}`,
    silence: () => {
      silent = true;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let h: Harness | undefined;
const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  // Each test stops the runtime itself; only the stand-in, the relay and the Redis keys are left.
  while (cleanups.length) await cleanups.pop()?.();
  if (h) {
    await h.slack.close();
    await testRedis(h.prefix).cleanup();
    h = undefined;
  }
});

/** Stops the runtime with a 1 s budget and says how long it took. */
async function timedStop(harness: Harness): Promise<number> {
  const started = performance.now();
  await harness.runtime.stop(1_000);
  return performance.now() - started;
}

describe('shutdown', () => {
  it('keeps one deadline even while a gateway request hangs', async () => {
    h = await startHarness('e2e-shutdown-gw');
    await bind(h, 'acme-plumbing');
    // The gateway takes the read and never answers: closing the gateway client waits for it, unless bounded.
    h.sandbox.failNext('timeout', { method: 'GET', resource: 'keywords' });
    await h.gateway('keywords');
    const sandbox = h.sandbox;
    await h.slack.waitFor(() => sandbox.requests().some((r) => r.resource === 'keywords'), {
      what: 'the hanging read at the sandbox',
    });
    // The budget plus room for a busy machine; unbounded, the held read keeps stop() for its 15 s timeout.
    expect(await timedStop(h)).toBeLessThan(4_000);
  });

  it('keeps one deadline even while Redis stops answering (the queue, the workers and the connection)', async () => {
    const relay = await silenceableRedis();
    cleanups.push(relay.close);
    h = await startHarness('e2e-shutdown-redis', { REDIS_URL: relay.url });
    relay.silence();
    // Unbounded, closing the queue waits for a Redis that never answers: for ever.
    expect(await timedStop(h)).toBeLessThan(4_000);
  });
});
