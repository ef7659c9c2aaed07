/**
 * GATEWAY_FLEET_READ_CONCURRENCY across processes: first come, first served, a deadline on the wait, and a share
 * kept for people's reads. Each "process" is its own Redis connection and its own gates (its own slot owner); the
 * sandbox answers each read in 50 ms and logs what it received.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GatewayClient } from '../../src/gateway/client.js';
import { GatewayErrorCode, ReadsBusyError } from '../../src/gateway/errors.js';
import type { ReadGate } from '../../src/gateway/read-gate.js';
import { SANDBOX_KEYS } from '../../src/gateway/spec.js';
import type { Redis } from '../../src/redis/connection.js';
import { createRedis } from '../../src/redis/connection.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { gatewayReadGates } from '../../src/store/fleet-read-slots.js';
import { TEST_REDIS_URL, testRedis, uniquePrefix } from '../helpers/redis.js';

const prefix = uniquePrefix('read-order');
const { redis, cleanup } = testRedis(prefix);
const connections: Redis[] = [];
const clients: GatewayClient[] = [];
let sandbox: Sandbox;
const queueKey = `${prefix}:gateway:read-slots:queue`;

/** One process's gates: a Redis connection of its own, its own cap of 8, the fleet's cap shared. */
function processGates(fleetReadConcurrency: number, readTimeoutMs = 20_000) {
  const connection = createRedis(TEST_REDIS_URL);
  connections.push(connection);
  return gatewayReadGates(connection, prefix, { readConcurrency: 8, fleetReadConcurrency, readTimeoutMs });
}

function client(readGate: ReadGate, readTimeoutMs: number): GatewayClient {
  const made = new GatewayClient({
    baseUrl: sandbox.url,
    apiKey: SANDBOX_KEYS.full,
    connections: 20,
    readTimeoutMs,
    readGate,
  });
  clients.push(made);
  return made;
}

const readOnce = (gateway: GatewayClient, marker: number) =>
  gateway.read('keywords', { clientId: 'harbor-law', limit: 1, offset: marker % 40 });

/** `streams` reads kept going back to back until `stop` says so; how many ended, and how (an error ends a stream). */
function keepReading(gateway: GatewayClient, streams: number, stop: { now: boolean }) {
  const done = { reads: 0 };
  const running = Promise.all(
    Array.from({ length: streams }, async (_, s) => {
      while (!stop.now) {
        await readOnce(gateway, s);
        done.reads += 1;
      }
    }),
  );
  return { done, running };
}

/** A gate that counts the slots its reads hold at once, around the gate under test. */
function counted(gate: ReadGate) {
  const held = { now: 0, max: 0 };
  const wrapped: ReadGate = {
    async acquire(signal) {
      const release = await gate.acquire(signal);
      held.now += 1;
      held.max = Math.max(held.max, held.now);
      return () => {
        held.now -= 1;
        release();
      };
    },
  };
  return { held, wrapped };
}

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, knobs: { latencyMs: 50 } });
});
beforeEach(() => sandbox.reset());
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all(connections.map((c) => c.quit()));
  await sandbox?.close();
  await cleanup();
});

describe('the fleet read cap across processes', () => {
  it('a slot freed by A goes to B, who asked first, not to A asking again', async () => {
    const a = processGates(2).people;
    const b = processGates(2).people;
    const held = [await a.acquire(), await a.acquire()];
    const order: string[] = [];
    const bTurn = b.acquire().then((release) => {
      order.push('B');
      return release;
    });
    await expect.poll(() => redis.zcard(queueKey)).toBe(1);
    const aAgain = a.acquire().then((release) => {
      order.push('A');
      return release;
    });
    await expect.poll(() => redis.zcard(queueKey)).toBe(2);
    held[0]?.();
    const releaseB = await bTurn;
    expect(order).toEqual(['B']);
    releaseB();
    (await aAgain)();
    held[1]?.();
    expect(order).toEqual(['B', 'A']);
  });

  it('cap 4, A keeps 4 reads going: B is served within its deadline while A goes on reading', async () => {
    const deadlineMs = 5_000;
    const a = client(processGates(4, deadlineMs).people, deadlineMs);
    const b = client(processGates(4, deadlineMs).people, deadlineMs);
    const stop = { now: false };
    const fromA = keepReading(a, 4, stop);
    await expect.poll(() => fromA.done.reads).toBeGreaterThan(8);
    const before = fromA.done.reads;
    const waits: number[] = [];
    try {
      for (let i = 0; i < 10; i++) {
        const started = Date.now();
        await readOnce(b, i);
        waits.push(Date.now() - started);
      }
    } finally {
      stop.now = true;
      await fromA.running;
    }
    expect(waits).toHaveLength(10);
    expect(Math.max(...waits)).toBeLessThan(deadlineMs);
    // A was not held back: it kept the rest of the cap busy all along.
    expect(fromA.done.reads - before).toBeGreaterThan(10);
    expect(sandbox.readsInFlight().max).toBeLessThanOrEqual(4);
    await expect.poll(() => redis.zcard(`${prefix}:gateway:read-slots`)).toBe(0);
  });

  it('a read that gets no slot within its deadline fails as busy, sends nothing and leaves the queue', async () => {
    const holder = processGates(1).people;
    const release = await holder.acquire();
    const b = client(processGates(1, 400).people, 400);
    try {
      const failed = await readOnce(b, 0).catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(ReadsBusyError);
      expect((failed as ReadsBusyError).code).toBe(GatewayErrorCode.Busy);
      expect((failed as ReadsBusyError).advice).toMatch(/try again/);
      expect(sandbox.requests()).toHaveLength(0);
      await expect.poll(() => redis.zcard(queueKey)).toBe(0);
    } finally {
      release();
    }
    // The next read, with the slot free, is served.
    await expect(readOnce(b, 1)).resolves.toBeDefined();
  });

  it('assistant reads hold at most half the cap: people reads are served beside an assistant flood', async () => {
    const deadlineMs = 5_000;
    const assistants = counted(processGates(4, deadlineMs).assistants);
    const assistantClient = client(assistants.wrapped, deadlineMs);
    const people = client(processGates(4, deadlineMs).people, deadlineMs);
    const stop = { now: false };
    const flood = keepReading(assistantClient, 8, stop);
    await expect.poll(() => flood.done.reads).toBeGreaterThan(8);
    const waits: number[] = [];
    try {
      await Promise.all(
        Array.from({ length: 2 }, async (_, s) => {
          for (let i = 0; i < 6; i++) {
            const started = Date.now();
            await readOnce(people, s * 10 + i);
            waits.push(Date.now() - started);
          }
        }),
      );
    } finally {
      stop.now = true;
      await flood.running;
    }
    expect(waits).toHaveLength(12);
    expect(assistants.held.max).toBe(2);
    expect(sandbox.readsInFlight().max).toBeLessThanOrEqual(4);
  });
});
