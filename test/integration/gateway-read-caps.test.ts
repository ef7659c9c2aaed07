/**
 * GATEWAY_READ_CONCURRENCY and GATEWAY_FLEET_READ_CONCURRENCY: however many reads are asked for at once, the
 * gateway never has more in flight than the caps. Two gateway clients stand for two processes on one Redis;
 * the sandbox (50 ms a read) counts the reads it is answering at once.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GatewayClient } from '../../src/gateway/client.js';
import { ReadSlots } from '../../src/gateway/read-gate.js';
import { SANDBOX_KEYS } from '../../src/gateway/spec.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { gatewayReadGates } from '../../src/store/fleet-read-slots.js';
import { testRedis, uniquePrefix } from '../helpers/redis.js';

const prefix = uniquePrefix('read-caps');
const { redis, cleanup } = testRedis(prefix);
let sandbox: Sandbox;
const clients: GatewayClient[] = [];

function client(readGate?: ConstructorParameters<typeof GatewayClient>[0]['readGate']): GatewayClient {
  const made = new GatewayClient({
    baseUrl: sandbox.url,
    apiKey: SANDBOX_KEYS.full,
    connections: 50,
    ...(readGate ? { readGate } : {}),
  });
  clients.push(made);
  return made;
}

/** `n` reads at once, each one page of a different offset. */
function burst(gateway: GatewayClient, n: number) {
  return Promise.all(
    Array.from({ length: n }, (_, i) =>
      gateway.read('keywords', { clientId: 'harbor-law', limit: 1, offset: i % 40 }),
    ),
  );
}

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, knobs: { latencyMs: 50 } });
});
beforeEach(() => sandbox.reset());
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await sandbox?.close();
  await cleanup();
});

describe('caps on gateway reads in flight', () => {
  it('without a cap, a burst reaches the gateway all at once (what the caps are measured against)', async () => {
    await burst(client(), 30);
    expect(sandbox.readsInFlight().max).toBeGreaterThan(10);
  });

  it('one process: never more than GATEWAY_READ_CONCURRENCY, and every read is answered', async () => {
    const slots = new ReadSlots(3);
    const pages = await burst(client(slots), 30);
    expect(pages).toHaveLength(30);
    expect(sandbox.readsInFlight().max).toBe(3);
    expect(slots.maxInFlight).toBe(3);
    expect(slots.inFlight).toBe(0);
  });

  it('two processes on one Redis: never more than the fleet cap, each within its own', async () => {
    const caps = { readConcurrency: 3, fleetReadConcurrency: 4, readTimeoutMs: 20_000 };
    const a = client(gatewayReadGates(redis, prefix, caps).people);
    const b = client(gatewayReadGates(redis, prefix, caps).people);
    const [fromA, fromB] = await Promise.all([burst(a, 30), burst(b, 30)]);
    expect(fromA.length + fromB.length).toBe(60);
    expect(sandbox.readsInFlight().max).toBeLessThanOrEqual(4);
    expect(sandbox.readsInFlight().max).toBeGreaterThanOrEqual(3);
    // Every slot was given back.
    await expect.poll(() => redis.zcard(`${prefix}:gateway:read-slots`)).toBe(0);
  });

  it('a reader that gives up while waiting for a slot leaves without taking one', async () => {
    const slots = new ReadSlots(1);
    const gateway = client(slots);
    const first = gateway.read('keywords', { clientId: 'harbor-law', limit: 1 });
    const gaveUp = gateway.read('keywords', {
      clientId: 'harbor-law',
      limit: 1,
      signal: AbortSignal.timeout(10),
    });
    await expect(gaveUp).rejects.toThrow();
    await first;
    expect(slots.inFlight).toBe(0);
  });
});
