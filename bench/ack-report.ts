/** The ack benchmark's figures and the lines it prints. */

import { type CapacityStep, describeSteps } from './ack-capacity.js';
import type { Usage } from './ack-ipc.js';
import { percentile } from './ack-load.js';

const P99_RATIO_GOAL = 1.2;
const CPU_GOAL_MS = 0.4;
/** Bare Bolt's ack alone on the machine the CPU goal was set on: the goal reads against it on a slower one. */
const BARE_ACK_CPU_MS = 0.13;
const CAPACITY_GOAL = 0.6;

export interface Capacity {
  bot: number;
  bare: number;
  botSteps: CapacityStep[];
  bareSteps: CapacityStep[];
  /** The figure is a floor: the side passed the top rate, or the generator could not send faster. */
  botFloor: boolean;
  bareFloor: boolean;
}

export interface AckFigures {
  bare: { p50: number; p99: number };
  bot: { p50: number; p99: number };
  p99Ratio: number;
  p50Ratio: number;
  /** p99 of each measured round, for spotting a noisy round. */
  rounds: Array<{ bot: number; bare: number }>;
  answers: {
    help: { p50: number; p99: number; n: number };
    keywords: { p50: number; p99: number; n: number };
  };
  /** Requests not acked with 200 (all phases). */
  errors: number;
  /** CPU time per command, ms (the bot's includes answering it, over the commands it answered). */
  cpuPerCommandMs: { bot: number; bare: number };
  /** Measured bot commands refused as busy (not answered). */
  busy: number;
  /** Measured bot commands answered with an error reply instead of their answer (not answered either). */
  wrong: number;
  /** Commands per second answered whole with answer p99 < 3 s, keeping pace: the bot's and the bare answering app's. */
  capacity?: Capacity;
  /** Worst p99 of event-loop delay over the measured rounds, ms. */
  loopDelayP99Ms: { bot: number; bare: number };
  /** Sampled commands whose answer never came or was an error. */
  answerFailures: number;
  ok: boolean;
  summary: string;
}

export interface AckMeasurements {
  /** Measured bot commands that got "I am very busy" instead of an answer. */
  busy: number;
  /** Measured bot commands that got an error reply instead of their answer. */
  wrong: number;
  capacity?: Capacity;
  bot: Float64Array;
  bare: Float64Array;
  botRounds: Float64Array[];
  bareRounds: Float64Array[];
  errors: number;
  answerFailures: number;
  answerMs: { help: number[]; keywords: number[] };
  /** Per bot round: how long after its last ack the bot's last answer arrived. */
  drainMs: number[];
  /** Each measured round's CPU and event-loop delay, per target (the bot's includes its drain). */
  usage: { bot: Usage[]; bare: Usage[] };
  perRound: number;
  inFlight: number;
  samples: number;
  sampleGapMs: number;
  /** Where the processes ran (ack-placement.ts). */
  placement: string;
}

const ms = (v: number) => (v >= 100 ? v.toFixed(0) : v.toFixed(v >= 10 ? 1 : 2));
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
const spread = (values: ArrayLike<number>) => ({ p50: percentile(values, 50), p99: percentile(values, 99) });

/** A side that passed the top rate, or outran the generator, may sustain more: its figure is a floor. */
const atLeast = (floor: boolean) => (floor ? 'at least ' : '');

export function summarize(m: AckMeasurements): AckFigures {
  const bare = spread(m.bare);
  const bot = spread(m.bot);
  const p99Ratio = bot.p99 / bare.p99;
  const p50Ratio = bot.p50 / bare.p50;
  const rounds = m.botRounds.map((b, i) => ({
    bot: percentile(b, 99),
    bare: percentile(m.bareRounds[i] ?? new Float64Array(), 99),
  }));
  const help = { ...spread(m.answerMs.help), n: m.answerMs.help.length };
  const keywords = { ...spread(m.answerMs.keywords), n: m.answerMs.keywords.length };
  const cpuPerCommandMs = {
    // All the bot's CPU (refusals' and error replies' included) over the commands it really answered.
    bot: sum(m.usage.bot.map((u) => u.cpuMs)) / Math.max(1, m.bot.length - m.busy - m.wrong),
    bare: sum(m.usage.bare.map((u) => u.cpuMs)) / m.bare.length,
  };
  const loopDelayP99Ms = {
    bot: Math.max(...m.usage.bot.map((u) => u.loopDelayP99Ms)),
    bare: Math.max(...m.usage.bare.map((u) => u.loopDelayP99Ms)),
  };
  const capacityRatio = m.capacity ? m.capacity.bot / Math.max(1, m.capacity.bare) : Number.NaN;
  const ok =
    p99Ratio <= P99_RATIO_GOAL && m.errors === 0 && m.answerFailures === 0 && m.busy === 0 && m.wrong === 0;
  const met = (yes: boolean) => (yes ? 'met' : 'MISSED');
  const lines = [
    `ack p50/p99: bare ${ms(bare.p50)}/${ms(bare.p99)} ms, bot ${ms(bot.p50)}/${ms(bot.p99)} ms; ` +
      `p99 ratio ${p99Ratio.toFixed(2)} (goal <= ${P99_RATIO_GOAL}${p99Ratio <= P99_RATIO_GOAL ? ', met' : ', MISSED'}); ` +
      `p50 ratio ${p50Ratio.toFixed(2)}`,
    `  ${m.bot.length} commands each (half help, half keywords) at ${m.inFlight} in flight, ` +
      `${m.botRounds.length} alternating rounds of ${m.perRound}; per-round p99 bot/bare: ` +
      rounds.map((r) => `${ms(r.bot)}/${ms(r.bare)}`).join(', ') +
      ` ms; bot's last answer ${m.drainMs.map((d) => ms(d)).join(', ')} ms after its round's last ack`,
    `  ${m.placement}`,
    `  busy refusals: ${m.busy} of the bot's ${m.bot.length} measured commands (goal 0, ${met(m.busy === 0)}; ` +
      'a refusal is not an answer); error replies instead of answers: ' +
      `${m.wrong}`,
    `  CPU per answered command: bot ${ms(cpuPerCommandMs.bot)} ms (ack + answer; goal <= ${CPU_GOAL_MS}, ` +
      `${met(cpuPerCommandMs.bot <= CPU_GOAL_MS)}), bare ${ms(cpuPerCommandMs.bare)} ms (ack only); ` +
      `bot/bare ${(cpuPerCommandMs.bot / cpuPerCommandMs.bare).toFixed(2)} (the goal is ` +
      `${(CPU_GOAL_MS / BARE_ACK_CPU_MS).toFixed(1)}× the ${BARE_ACK_CPU_MS} ms bare ack of the machine it was set on); ` +
      `event-loop delay p99: bot ${ms(loopDelayP99Ms.bot)} ms, bare ${ms(loopDelayP99Ms.bare)} ms`,
    `answer p50: help ${ms(help.p50)} ms, keywords ${ms(keywords.p50)} ms ` +
      `(p99 ${ms(help.p99)} / ${ms(keywords.p99)} ms; ${help.n + keywords.n} of ${m.samples} commands ` +
      `paced one every ${m.sampleGapMs} ms, send → answer recorded by the Slack stand-in)`,
  ];
  if (m.capacity) {
    const c = m.capacity;
    lines.push(
      `capacity (every command answered, none busy, answer p99 < 3 s, keeping pace): bot ${atLeast(c.botFloor)}${c.bot}/s, ` +
        `bare answering app ${atLeast(c.bareFloor)}${c.bare}/s; ratio ${capacityRatio.toFixed(2)} ` +
        `(goal >= ${CAPACITY_GOAL}, ${met(capacityRatio >= CAPACITY_GOAL)}` +
        `${c.bareFloor ? '; the bare app may sustain more, so the ratio may be lower' : ''})`,
      `  bot steps: ${describeSteps(c.botSteps)}`,
      `  bare steps: ${describeSteps(c.bareSteps)}`,
    );
  }
  if (m.errors || m.answerFailures)
    lines.push(
      `errors: ${m.errors} requests not acked with 200, ${m.answerFailures} answers missing or wrong`,
    );
  return {
    bare,
    bot,
    p99Ratio,
    p50Ratio,
    rounds,
    answers: { help, keywords },
    errors: m.errors,
    answerFailures: m.answerFailures,
    cpuPerCommandMs,
    busy: m.busy,
    wrong: m.wrong,
    ...(m.capacity ? { capacity: m.capacity } : {}),
    loopDelayP99Ms,
    ok,
    summary: lines.join('\n'),
  };
}
