/**
 * The ack benchmark's capacity figure: commands sent at a steady rate (an open loop: command i leaves at
 * i / rate s whatever came back), one step after another at rising rates, until a step is not answered whole.
 * A step passes when every command was acked with 200 and answered (a busy refusal is not an answer) with the
 * p99 of send → answer under 3 s, and the answers kept pace: the commands of the step's last quarter were
 * answered with a p50 under 1 s (a target that queues what it cannot answer, rather than refusing it, would
 * otherwise pass a 4 s step at a rate it cannot sustain, its backlog still under 3 s when the step ends). The
 * ladder stops at the first rate that fails twice in a row; the rate halfway between it and the last that
 * passed is then tried, twice over (BISECTIONS), so the figure is within about 6 % of the real limit rather
 * than a whole step of the ladder below it. The capacity is the highest rate that passed.
 *
 * The load generator must keep the rate it is asked for: a step whose commands left more slowly (the
 * generator's own CPU ran out) measured the target at a lower rate than it names, so it ends the ladder
 * without a verdict on the target, and the figure is printed as "at least".
 */
import type { Pool } from 'undici';
import type { RoleChild } from './ack-ipc.js';
import { percentile, type SignedCommand, sendPaced } from './ack-load.js';
import type { CallStamps } from './ack-watch.js';

/** Commands per second tried, in order; the run stops at the first rate that fails. */
export const CAPACITY_RATES = [
  25, 50, 100, 150, 200, 250, 300, 400, 500, 650, 800, 1_000, 1_300, 1_600, 2_000, 2_500, 3_200, 4_000, 5_000,
  6_400, 8_000, 10_000,
];
const ANSWER_P99_GOAL_MS = 3_000;
/** The step's last quarter must be answered with a p50 under this: the backlog is not growing. */
const KEEP_PACE_P50_MS = 1_000;
/** A step whose commands left at under this share of its rate measured the generator, not the target. */
const GENERATOR_KEPT_SHARE = 0.95;
/** How many times the rate between the last pass and the first failure is tried. */
const BISECTIONS = 2;
/** Bisected rates are rounded to this many commands a second. */
const BISECT_GRAIN = 50;
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
  /** The rate the commands really left at (first send to last). */
  sentRate: number;
  /** The generator could not keep the step's rate: no verdict on the target. */
  generatorBound: boolean;
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

/**
 * Runs the ladder against one target; every step's figures, the capacity (0 when the first step fails), and
 * whether it is a floor: the target passed the top rate, or the generator, not the target, ended the ladder.
 */
export async function measureCapacity(
  world: RoleChild,
  target: CapacityTarget,
  stepSeconds: number,
  rates: readonly number[] = CAPACITY_RATES,
): Promise<{ capacity: number; steps: CapacityStep[]; floor: boolean }> {
  const steps: CapacityStep[] = [];
  // A failed step is tried once more: on a shared machine one step can fall on someone else's burst.
  const tryRate = async (rate: number): Promise<CapacityStep> => {
    let step: CapacityStep | undefined;
    for (let attempt = 0; attempt < 2 && !step?.ok && !step?.generatorBound; attempt++) {
      // Each step starts once the last one's answers have stopped coming (a target still answering a failed
      // step competes for the CPU), on a fresh stand-in (what it holds would slow what it records next).
      await quiet(world);
      await world.call('reset');
      const commands = await target.commands(Math.round(rate * stepSeconds));
      step = await runStep(world, target.pool, commands, rate);
      steps.push(step);
    }
    return step as CapacityStep;
  };
  let capacity = 0;
  let failedAt: number | undefined;
  for (const rate of rates) {
    const step = await tryRate(rate);
    if (step.generatorBound) {
      await quiet(world);
      return { capacity, steps, floor: true };
    }
    if (!step.ok) {
      failedAt = rate;
      break;
    }
    capacity = rate;
  }
  for (let i = 0; i < BISECTIONS && failedAt !== undefined && capacity > 0; i++) {
    const mid = Math.round((capacity + failedAt) / 2 / BISECT_GRAIN) * BISECT_GRAIN;
    if (mid <= capacity || mid >= failedAt) break;
    const step = await tryRate(mid);
    // The generator ran out below a rate the target failed: the failure stands, the bisection ends.
    if (step.generatorBound) break;
    if (step.ok) capacity = mid;
    else failedAt = mid;
  }
  await quiet(world);
  return { capacity, steps, floor: failedAt === undefined };
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
  const first = sent.sentAt[0] ?? 0;
  const last = sent.sentAt[commands.length - 1] ?? first;
  const sentRate = last > first ? ((commands.length - 1) * 1_000) / (last - first) : rate;
  const generatorBound = sentRate < rate * GENERATOR_KEPT_SHARE;
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
    sentRate,
    generatorBound,
    ok:
      !generatorBound &&
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
        `${s.rate}/s ${s.ok ? 'ok' : s.generatorBound ? 'NOT SENT' : 'FAILED'} ` +
        `(${s.generatorBound ? `the generator sent only ${s.sentRate.toFixed(0)}/s; ` : ''}` +
        `p99 ${Number.isNaN(s.p99Ms) ? '—' : s.p99Ms.toFixed(0)} ms` +
        `${s.tailP50Ms >= KEEP_PACE_P50_MS ? `, falling behind: last quarter p50 ${s.tailP50Ms.toFixed(0)} ms` : ''}` +
        `${s.busy ? `, ${s.busy} busy` : ''}${s.missing ? `, ${s.missing} unanswered` : ''}` +
        `${s.ackErrors ? `, ${s.ackErrors} not acked` : ''})`,
    )
    .join(', ');
}
