import { randomUUID } from 'node:crypto';
import { chainGates, type ReadGate, ReadSlots } from '../gateway/index.js';
import type { Redis } from '../redis/connection.js';
import { defineScript, runScript } from '../redis/scripts.js';

/**
 * The fleet's cap on gateway reads in flight (GATEWAY_FLEET_READ_CONCURRENCY): a sorted set in Redis of the slots
 * held, each scored with the time it lapses. Taking a slot drops the lapsed ones first, so the slots of a process
 * that died come back after the lease (a read's own deadline and a margin) without anyone giving them back.
 * A read waiting for a slot asks again after a short, growing, jittered pause; a process asks only for reads that
 * already hold one of its own slots, so the waiting is bounded by the per-process caps.
 */

const TAKE = defineScript(
  'gwReadSlotTake',
  1,
  `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
`,
);

interface FleetReadSlotsOptions {
  limit: number;
  /** How long a slot is held at most (a dead holder's slot lapses then). */
  leaseMs: number;
  /** First pause before asking again; it doubles up to maxPollMs. */
  pollMs?: number;
  maxPollMs?: number;
}

class FleetReadSlots implements ReadGate {
  readonly #key: string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly options: FleetReadSlotsOptions,
  ) {
    this.#key = `${prefix}:gateway:read-slots`;
  }

  async acquire(signal?: AbortSignal): Promise<() => void> {
    const id = randomUUID();
    let pause = this.options.pollMs ?? 10;
    for (;;) {
      signal?.throwIfAborted();
      const took = await runScript(
        this.redis,
        TAKE,
        [this.#key],
        [this.options.limit, this.options.leaseMs, id],
      );
      if (took === 1) break;
      await new Promise((resolve) => setTimeout(resolve, pause * (0.5 + Math.random())));
      pause = Math.min(pause * 2, this.options.maxPollMs ?? 200);
    }
    let given = false;
    return () => {
      if (given) return;
      given = true;
      // A slot not given back (Redis away) lapses with its lease.
      this.redis.zrem(this.#key, id).catch(() => {});
    };
  }

  /** Slots held now across the fleet (lapsed ones included until the next take drops them). */
  async held(): Promise<number> {
    return this.redis.zcard(this.#key);
  }
}

/** This process's cap, then the fleet's when it has one; a fleet slot lapses a little after a read's deadline. */
export function gatewayReadGate(
  redis: Redis,
  prefix: string,
  caps: { readConcurrency: number; fleetReadConcurrency: number; readTimeoutMs: number },
): ReadGate {
  const fleet = caps.fleetReadConcurrency
    ? new FleetReadSlots(redis, prefix, {
        limit: caps.fleetReadConcurrency,
        leaseMs: caps.readTimeoutMs + 10_000,
      })
    : undefined;
  return chainGates(new ReadSlots(caps.readConcurrency), fleet);
}
