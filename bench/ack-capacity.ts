/**
 * The ack benchmark's capacity figure: commands sent at a steady rate (an open loop: command i leaves at
 * i / rate s whatever came back), one step after another at rising rates, until a step is not answered whole.
 * A step passes when every command was acked with 200 and answered (a busy refusal is not an answer) with the
 * p99 of send → answer under 3 s, and the answers kept pace: the commands of the step's last quarter were
 * answered with a p50 under 1 s (a target that queues what it cannot answer, rather than refusing it, would
 * otherwise pass a 4 s step at a rate it cannot sustain, its backlog still under 3 s when the step ends). The
 * capacity is the highest rate that passed before the first that failed twice in a row.
 */
import type { Pool } from 'undici';
import type { RoleChild } from './ack-ipc.js';
import { percentile, type SignedCommand, sendPaced } from './ack-load.js';
import type { CallStamps } from './ack-watch.js';

/** Commands per second tried, in order; the run stops at the first rate that fails. */
export const CAPACITY_RATES = [
  25, 50, 100, 150, 200, 250, 300, 400, 500, 650, 800, 1_000, 1_300, 1_600, 2_000, 2_500, 3_200,
];
const ANSWER_P99_GOAL_MS = 3_000;
/** The step's last quarter must be answered with a p50 under this: the backlog is not growing. */
const KEEP_PACE_P50_MS = 1_000;
/** After the last send, how long answers may still come before the rest count as missing. */
const DRAIN_MS = 10_000;
const QUIET_MAX_MS = 60_000;

export interface CapacityStep {
  rate: number;
  sent: number;
  answered: number;
  busy: number;
  missing: number;
  ackErrors: number;
  p99Ms: number;
  /** p50 of send → answer over the commands of the step's last quarter. */
  tailP50Ms: number;
  ok: boolean;
}

/** One command of a step: its signed request, where its answer shows, and whether it answers in the channel. */
export interface CapacityCommand {
  signed: SignedCommand;
  responseUrl: string;
  /** The answer is a channel post (keywords) rather than a response_url post (help). */
  postsIn?: string;
}

export interface CapacityTarget {
  pool: Pool;
  /** Signs `n` fresh commands for a step (new response URLs and trigger ids). */
  commands(n: number): Promise<CapacityCommand[]>;
}

const idOf = (url: string) => url.slice(url.lastIndexOf('/') + 1);

/** Runs the ladder against one target; every step's figures, and the capacity (0 when the first step fails). */
export async function measureCapacity(
  world: RoleChild,
  target: CapacityTarget,
  stepSeconds: number,
  rates: readonly number[] = CAPACITY_RATES,
): Promise<{ capacity: number; steps: CapacityStep[] }> {
  const steps: CapacityStep[] = [];
  let capacity = 0;
  for (const rate of rates) {
    // A failed step is tried once more: on a shared machine one step can fall on someone else's burst.
    let passed = false;
    for (let attempt = 0; attempt < 2 && !passed; attempt++) {
      // Each step starts once the last one's answers have stopped coming (a target still answering a failed
      // step competes for the CPU), on a fresh stand-in (what it holds would slow what it records next).
      await quiet(world);
      await world.call('reset');
      const commands = await target.commands(Math.round(rate * stepSeconds));
      const step = await runStep(world, target.pool, commands, rate);
      steps.push(step);
      passed = step.ok;
    }
    if (!passed) break;
    capacity = rate;
  }
  await quiet(world);
  return { capacity, steps };
}

/** Waits until no answer has reached the stand-in for a second (at most QUIET_MAX_MS). */
async function quiet(world: RoleChild): Promise<void> {
  const deadline = Date.now() + QUIET_MAX_MS;
  let last = -1;
  let since = Date.now();
  while (Date.now() < deadline) {
    const { answered, busy } = await world.call<{ answered: number; busy: number }>('answers');
    if (answered + busy !== last) {
      last = answered + busy;
      since = Date.now();
    } else if (Date.now() - since >= 1_000) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function runStep(
  world: RoleChild,
  pool: Pool,
  commands: CapacityCommand[],
  rate: number,
): Promise<CapacityStep> {
  const before = await world.call<{ answered: number; busy: number }>('answers');
  await world.call('stampStart');
  const sent = await sendPaced(
    pool,
    commands.map((c) => c.signed),
    1_000 / rate,
  );
  const deadline = Date.now() + DRAIN_MS;
  for (;;) {
    const now = await world.call<{ answered: number; busy: number }>('answers');
    const came = now.answered + now.busy - before.answered - before.busy;
    if (came >= commands.length || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const stamps = await world.call<CallStamps>('stampTake');
  // A channel post names no command: in one channel they are matched in sending order (the bot answers in the
  // order it queued them, a few at a time, so the k-th post answers about the k-th command).
  const posts = new Map(Object.entries(stamps.posts).map(([channel, at]) => [channel, [...at]]));
  const latencies: number[] = [];
  const tail: number[] = [];
  const tailFrom = Math.floor((commands.length * 3) / 4);
  let busy = 0;
  let missing = 0;
  commands.forEach((c, i) => {
    const response = stamps.responses[idOf(c.responseUrl)];
    const at = response?.at ?? (c.postsIn ? posts.get(c.postsIn)?.shift() : undefined);
    if (response?.busy) busy++;
    else if (at === undefined) missing++;
    else {
      latencies.push(at - (sent.sentAt[i] ?? 0));
      if (i >= tailFrom) tail.push(at - (sent.sentAt[i] ?? 0));
    }
  });
  const p99Ms = latencies.length ? percentile(latencies, 99) : Number.NaN;
  const tailP50Ms = tail.length ? percentile(tail, 50) : Number.NaN;
  return {
    rate,
    sent: commands.length,
    answered: latencies.length,
    busy,
    missing,
    ackErrors: sent.errors,
    p99Ms,
    tailP50Ms,
    ok:
      sent.errors === 0 &&
      busy === 0 &&
      missing === 0 &&
      p99Ms < ANSWER_P99_GOAL_MS &&
      tailP50Ms < KEEP_PACE_P50_MS,
  };
}

/** "400/s: 1600 answered, p99 812 ms" lines for the report, the failing step last. */
export function describeSteps(steps: CapacityStep[]): string {
  return steps
    .map(
      (s) =>
        `${s.rate}/s ${s.ok ? 'ok' : 'FAILED'} (p99 ${Number.isNaN(s.p99Ms) ? '—' : s.p99Ms.toFixed(0)} ms` +
        `${s.tailP50Ms >= KEEP_PACE_P50_MS ? `, falling behind: last quarter p50 ${s.tailP50Ms.toFixed(0)} ms` : ''}` +
        `${s.busy ? `, ${s.busy} busy` : ''}${s.missing ? `, ${s.missing} unanswered` : ''}` +
        `${s.ackErrors ? `, ${s.ackErrors} not acked` : ''})`,
    )
    .join(', ');
}
