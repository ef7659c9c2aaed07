import { randomUUID } from 'node:crypto';
import { chainGates, type ReadGate, ReadSlots } from '../gateway/index.js';
import type { Redis } from '../redis/connection.js';
import { defineScript, runScript } from '../redis/scripts.js';

/**
 * The fleet's cap on gateway reads in flight (GATEWAY_FLEET_READ_CONCURRENCY), first come, first served across
 * every process on the Redis. Slots held are a sorted set scored with the time each lapses, so the slots of a
 * process that died come back after the lease (a read's own deadline and a margin). A read that finds no slot
 * joins a queue ordered by arrival and asks again after a short pause (at once when a slot of its own process is
 * given back); a slot goes only to the waiters at the head
 * of the queue, so a process whose read just ended cannot take its slot again ahead of one that was waiting. A
 * waiter that stops asking (its process died) lapses from the queue after WAITER_TTL_MS.
 *
 * Assistant reads (the assistant tools' client) hold at most half the cap, so Slack's and the digests' reads
 * always have the other half: an assistant waiter at the head while that share is full is passed over, not
 * waited behind.
 */

const TAKE = defineScript(
  'gwReadSlotTake',
  4,
  `
local slots, assistants, queue, alive = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local limit, assistantLimit = tonumber(ARGV[1]), tonumber(ARGV[2])
local lease, waiterTtl, id = tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', slots, '-inf', now)
redis.call('ZREMRANGEBYSCORE', assistants, '-inf', now)
for _, gone in ipairs(redis.call('ZRANGEBYSCORE', alive, '-inf', now)) do
  redis.call('ZREM', queue, gone)
end
redis.call('ZREMRANGEBYSCORE', alive, '-inf', now)
if not redis.call('ZSCORE', queue, id) then
  redis.call('ZADD', queue, tonumber(t[1]) * 1000000 + tonumber(t[2]), id)
end
redis.call('ZADD', alive, now + waiterTtl, id)
redis.call('PEXPIRE', queue, waiterTtl)
redis.call('PEXPIRE', alive, waiterTtl)
local free = limit - redis.call('ZCARD', slots)
local room = assistantLimit - redis.call('ZCARD', assistants)
local mine = string.sub(id, 1, 2) == 'a:'
local ahead = 0
for _, w in ipairs(redis.call('ZRANGE', queue, 0, -1)) do
  if w == id then break end
  local assistant = string.sub(w, 1, 2) == 'a:'
  if not assistant or room > 0 then
    ahead = ahead + 1
    if assistant then room = room - 1 end
  end
end
if ahead >= free or (mine and room <= 0) then return {0, ahead} end
redis.call('ZREM', queue, id)
redis.call('ZREM', alive, id)
redis.call('ZADD', slots, now + lease, id)
redis.call('PEXPIRE', slots, lease)
if mine then
  redis.call('ZADD', assistants, now + lease, id)
  redis.call('PEXPIRE', assistants, lease)
end
return {1, ahead}
`,
);

/** Who reads: people (Slack answers, digests, jobs) or the assistant tools, whose share is capped. */
type ReadKind = 'people' | 'assistant';

/** A waiter that has not asked for this long is taken for dead and leaves the queue (it asks every ≤ 50 ms). */
const WAITER_TTL_MS = 2_000;

interface FleetReadSlotsOptions {
  limit: number;
  /** How long a slot is held at most (a dead holder's slot lapses then). */
  leaseMs: number;
  /** First pause before asking again; it doubles up to maxPollMs. */
  pollMs?: number;
  maxPollMs?: number;
}

class FleetReadSlots {
  readonly #keys: [slots: string, assistants: string, queue: string, alive: string];
  readonly #wakers = new Set<() => void>();

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly options: FleetReadSlotsOptions,
  ) {
    const base = `${prefix}:gateway:read-slots`;
    this.#keys = [base, `${base}:assistant`, `${base}:queue`, `${base}:queue-alive`];
  }

  /** Half the cap, at least one: a cap of 1 cannot keep a slot for people. */
  get assistantLimit(): number {
    return Math.max(1, Math.floor(this.options.limit / 2));
  }

  gate(kind: ReadKind): ReadGate {
    return { acquire: (signal) => this.#acquire(kind, signal) };
  }

  async #acquire(kind: ReadKind, signal?: AbortSignal): Promise<() => void> {
    const id = `${kind === 'assistant' ? 'a' : 'p'}:${randomUUID()}`;
    const { limit, leaseMs, pollMs = 10, maxPollMs = 50 } = this.options;
    let pause = pollMs;
    try {
      for (;;) {
        signal?.throwIfAborted();
        const args = [limit, this.assistantLimit, leaseMs, WAITER_TTL_MS, id];
        const [took, ahead] = (await runScript(this.redis, TAKE, this.#keys, args)) as [number, number];
        if (took === 1) break;
        // Near the head, a slot is a read's time away: ask often. Further back, less often, up to maxPollMs.
        pause = ahead < limit ? pollMs : Math.min(pause * 2, maxPollMs);
        await this.#pause(pause * (0.5 + Math.random()), signal);
      }
    } catch (error) {
      // Out of the queue at once, so the waiters behind need not wait for this one to lapse.
      const [, , queue, alive] = this.#keys;
      Promise.all([this.redis.zrem(queue, id), this.redis.zrem(alive, id)]).catch(() => {});
      throw signal?.aborted ? signal.reason : error;
    }
    let given = false;
    return () => {
      if (given) return;
      given = true;
      // A slot not given back (Redis away) lapses with its lease.
      const [slots, assistants] = this.#keys;
      const gone = [this.redis.zrem(slots, id), kind === 'assistant' ? this.redis.zrem(assistants, id) : 0];
      // This process's waiters ask again at once: the next in line may be one of them.
      Promise.all(gone)
        .catch(() => {})
        .finally(() => {
          for (const wake of this.#wakers) wake();
        });
    };
  }

  /** Waits `ms`, or less when a slot of this process is given back; rejects when `signal` aborts. */
  #pause(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const end = () => {
        clearTimeout(timer);
        this.#wakers.delete(wake);
        signal?.removeEventListener('abort', abort);
      };
      const wake = () => {
        end();
        resolve();
      };
      const abort = () => {
        end();
        reject(signal?.reason);
      };
      const timer = setTimeout(wake, ms);
      this.#wakers.add(wake);
      signal?.addEventListener('abort', abort, { once: true });
    });
  }
}

/** The gates of people's reads and of the assistant tools' reads; both share this process's cap. */
export interface ReadGates {
  people: ReadGate;
  assistants: ReadGate;
}

/** This process's cap, then the fleet's when it has one; a fleet slot lapses a little after a read's deadline. */
export function gatewayReadGates(
  redis: Redis,
  prefix: string,
  caps: { readConcurrency: number; fleetReadConcurrency: number; readTimeoutMs: number },
): ReadGates {
  const own = new ReadSlots(caps.readConcurrency);
  const fleet = caps.fleetReadConcurrency
    ? new FleetReadSlots(redis, prefix, {
        limit: caps.fleetReadConcurrency,
        leaseMs: caps.readTimeoutMs + 10_000,
      })
    : undefined;
  return {
    people: chainGates(own, fleet?.gate('people')),
    assistants: chainGates(own, fleet?.gate('assistant')),
  };
}
