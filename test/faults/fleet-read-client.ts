/**
 * One process of the "fleetread" fault row: a gateway client with the bot's own read gates (its cap of 8, the
 * fleet's through Redis). Reads `{redisUrl, prefix, gatewayUrl, cap, deadlineMs, streams, reads}` on stdin.
 * `reads: 0` holds the cap: `streams` reads back to back until SIGTERM, printing `holding` once the first reads
 * are in, then the time each read ended. Otherwise `reads` reads one after another, each its wait for a slot
 * timed, and then its outcome. The last line is the JSON result.
 */
import { once } from 'node:events';
import { GatewayClient } from '../../src/gateway/client.js';
import { isGatewayError } from '../../src/gateway/errors.js';
import type { ReadGate } from '../../src/gateway/read-gate.js';
import { SANDBOX_KEYS } from '../../src/gateway/spec.js';
import { createRedis } from '../../src/redis/connection.js';
import { gatewayReadGates } from '../../src/store/fleet-read-slots.js';

interface Plan {
  redisUrl: string;
  prefix: string;
  gatewayUrl: string;
  cap: number;
  deadlineMs: number;
  streams: number;
  reads: number;
}

/** The gate, with each wait for a slot timed. */
function timed(gate: ReadGate, waits: number[]): ReadGate {
  return {
    async acquire(signal) {
      const started = performance.now();
      const release = await gate.acquire(signal);
      waits.push(Math.round(performance.now() - started));
      return release;
    },
  };
}

async function main(): Promise<void> {
  let input = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    input += chunk;
  });
  await once(process.stdin, 'end');
  const plan = JSON.parse(input) as Plan;
  const redis = createRedis(plan.redisUrl);
  const gates = gatewayReadGates(redis, plan.prefix, {
    readConcurrency: 8,
    fleetReadConcurrency: plan.cap,
    readTimeoutMs: plan.deadlineMs,
  });
  const waits: number[] = [];
  const gateway = new GatewayClient({
    baseUrl: plan.gatewayUrl,
    apiKey: SANDBOX_KEYS.full,
    connections: 16,
    readTimeoutMs: plan.deadlineMs,
    readGate: timed(gates.people, waits),
    retry: { attempts: 1 },
  });
  const read = (n: number) => gateway.read('keywords', { clientId: 'harbor-law', limit: 1, offset: n % 40 });
  const result = plan.reads === 0 ? await hold(plan, read) : await serve(plan, read, waits);
  await gateway.close();
  await redis.quit();
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

async function hold(plan: Plan, read: (n: number) => Promise<unknown>) {
  let stopped = false;
  process.once('SIGTERM', () => {
    stopped = true;
  });
  const ended: number[] = [];
  let failed = 0;
  let told = false;
  await Promise.all(
    Array.from({ length: plan.streams }, async (_, s) => {
      while (!stopped) {
        await read(s).then(
          () => ended.push(Date.now()),
          () => failed++,
        );
        if (!told && ended.length >= plan.streams * 2) {
          told = true;
          process.stdout.write('holding\n');
        }
      }
    }),
  );
  return { ended, failed };
}

async function serve(plan: Plan, read: (n: number) => Promise<unknown>, waits: number[]) {
  const started = Date.now();
  const outcomes: string[] = [];
  for (let i = 0; i < plan.reads; i++) {
    outcomes.push(
      await read(i).then(
        () => 'ok',
        (error: unknown) => (isGatewayError(error) ? error.code : String(error)),
      ),
    );
  }
  return { started, finished: Date.now(), waits, outcomes };
}

void main();
