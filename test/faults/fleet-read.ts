import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { startSandbox } from '../../src/sandbox/index.js';
import { within } from '../fleet/deadline.js';
import type { PrivateRedis } from '../fleet/private-redis.js';
import type { FaultRow } from './row.js';

/**
 * The fleet read cap under a process that keeps it full: process A keeps 8 reads going back to back against a
 * fleet cap of 4 (so it always has reads waiting for a slot), and process B, started once A holds the cap, reads
 * one page after another, each with a 5 s deadline. Both are real processes on one Redis with the bot's own read
 * gates (fleet-read-client.ts); the sandbox answers each read in 50 ms. The goal: every read of B is served
 * within its deadline ("unanswered" counts those that were not: failed, or waited past it), while A goes on reading and the gateway never
 * sees more than the cap at once.
 */

const CAP = 4;
const A_STREAMS = 8;
const DEADLINE_MS = 5_000;
const LATENCY_MS = 50;
const PREFIX = 'faults-fleetread';

interface Held {
  ended: number[];
  failed: number;
}

interface Served {
  started: number;
  finished: number;
  waits: number[];
  outcomes: string[];
}

function startClient(plan: Record<string, unknown>): { child: ChildProcess; lines: string[] } {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(new URL('./fleet-read-client.ts', import.meta.url))],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  child.stdin?.end(JSON.stringify(plan));
  const lines: string[] = [];
  let rest = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    const parts = (rest + chunk.toString('utf8')).split('\n');
    rest = parts.pop() ?? '';
    lines.push(...parts);
  });
  return { child, lines };
}

async function resultOf<T>(started: {
  child: ChildProcess;
  lines: string[];
}): Promise<{ code: number; result: T }> {
  const [code] = (await once(started.child, 'exit')) as [number | null];
  return { code: code ?? 1, result: JSON.parse(started.lines.at(-1) ?? 'null') as T };
}

const percentile = (values: number[], p: number) =>
  [...values].sort((x, y) => x - y)[Math.min(values.length - 1, Math.floor(values.length * p))] ?? 0;

export async function fleetReadCap(redis: PrivateRedis, reads: number): Promise<FaultRow> {
  const began = Date.now();
  const sandbox = await startSandbox({ port: 0, knobs: { latencyMs: LATENCY_MS } });
  const plan = {
    redisUrl: redis.url,
    prefix: PREFIX,
    gatewayUrl: sandbox.url,
    cap: CAP,
    deadlineMs: DEADLINE_MS,
  };
  const a = startClient({ ...plan, streams: A_STREAMS, reads: 0 });
  let b: ReturnType<typeof startClient> | undefined;
  try {
    await within('process A to hold the fleet read cap', 60_000, async () => {
      while (!a.lines.includes('holding')) {
        if (a.child.exitCode !== null) throw new Error(`process A exited ${a.child.exitCode}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    });
    b = startClient({ ...plan, streams: 1, reads });
    // Far above what a served read waits (about a read's time), so a cap that starves B fails the row, not the run.
    const served = await within(`process B's ${reads} reads`, 120_000 + reads * 500, resultOf<Served>(b));
    a.child.kill('SIGTERM');
    const held = await within('process A to stop', 60_000, resultOf<Held>(a));
    return rowOf(reads, served, held, sandbox.readsInFlight().max, Date.now() - began);
  } finally {
    for (const p of [a, b]) if (p && p.child.exitCode === null) p.child.kill('SIGKILL');
    await sandbox.close();
  }
}

function rowOf(
  reads: number,
  b: { code: number; result: Served },
  a: { code: number; result: Held },
  maxInFlight: number,
  ms: number,
): FaultRow {
  const { started, finished, waits, outcomes } = b.result;
  // A read served after waiting past its deadline was not served within it either.
  const late = waits.filter((w) => w > DEADLINE_MS).length;
  const unserved = outcomes.filter((o) => o !== 'ok');
  const aReads = a.result.ended.filter((t) => t >= started && t <= finished).length;
  const crashes = [a, b].filter((p) => p.code !== 0).length;
  return {
    name: 'fleet read cap held by one process',
    size: `${reads} reads of B beside ${A_STREAMS} streams of A, cap ${CAP}`,
    lost: '—',
    duplicates: '—',
    silent: '—',
    unescaped: '—',
    blockKit: '—',
    crashes,
    unanswered: unserved.length + late + (reads - outcomes.length),
    ms,
    note: `B's wait for a slot p50 ${percentile(waits, 0.5)} ms, max ${Math.max(0, ...waits)} ms (deadline ${DEADLINE_MS} ms), ${outcomes.length - unserved.length}/${reads} served in ${finished - started} ms; A's reads in the same time ${aReads} (${a.result.failed} failed); at most ${maxInFlight} reads at the gateway at once`,
    details: [
      ...(unserved.length ? [`B's reads not served: ${[...new Set(unserved)].join(', ')}`] : []),
      ...(late
        ? [`${late} of B's reads waited longer than their ${DEADLINE_MS} ms deadline for a slot`]
        : []),
    ],
    missed: [
      ...(aReads > 0 ? [] : ['A did not keep reading while B read (the cap was not held)']),
      ...(maxInFlight <= CAP ? [] : [`the gateway saw ${maxInFlight} reads at once (cap ${CAP})`]),
    ],
  };
}
