/**
 * Ack benchmark: signed `/gateway help` and `/gateway keywords` commands (half each, interleaved) at 50 in
 * flight, to the real bot and to a bare Bolt app that only acks, alternating rounds in one run. Prints the
 * p50 and p99 ack latency of each and their ratios (goal: bot p99 within 1.2× of the bare app's), then the
 * time from sending a command to its answer reaching the local Slack stand-in, in a paced run.
 *
 * Then the capacity (bench/ack-capacity.ts): the highest steady rate at which the bot answers every command
 * (no busy refusal) with answer p99 under 3 s and keeps pace, beside a bare Bolt app that acks and posts one fixed message to
 * the response_url. Busy refusals ("I am very busy") are counted and never taken for answers.
 *
 * Run: npx tsx bench/ack.ts [--quick] [--no-capacity] [--no-pin] [--tsx] [--cpu-prof=<dir>]
 *   --quick           a smaller run (smoke test of the wiring)
 *   --no-capacity     the ack rounds and answers only
 *   --no-pin          every process where the kernel puts it; by default (Linux, taskset, 2+ CPUs) the target
 *                     measured has the last CPU to itself and the load generator and fakes the others
 *                     (bench/ack-placement.ts)
 *   --tsx             the processes run from the TypeScript through tsx; by default they run compiled by tsc,
 *                     as `npm start` runs the bot (bench/ack-build.ts)
 *   --cpu-prof=<dir>  writes a V8 CPU profile and a sampled allocation profile of the bot process over the
 *                     measured rounds (not its start-up or the warm-up) into <dir> (open them in Chrome
 *                     DevTools, or sum their samples by function); the figures of a profiled run are not the
 *                     ones to quote
 * Exits non-zero only when something failed (a request not acked with 200, an answer missing), never for a
 * missed goal.
 *
 * Processes (see bench/ack-roles.ts): this one only sends and times; the bot, the bare app and the "world"
 * (local Slack stand-in + sandbox gateway) run in children of their own, so each target's event loop holds
 * its own work and nothing else.
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { Pool } from 'undici';
import { BindingStore } from '../src/bindings/binding-store.js';
import { SANDBOX_KEYS } from '../src/gateway/spec.js';
import { ensureRedis } from '../src/local/redis-local.js';
import { createRedis, deleteByPrefix } from '../src/redis/connection.js';
import { compileBench } from './ack-build.js';
import { type CapacityCommand, measureCapacity } from './ack-capacity.js';
import { forkRole, type RoleChild, type Usage } from './ack-ipc.js';
import {
  type CommandTarget,
  openPool,
  type SignedCommand,
  sendClosedLoop,
  sendPaced,
  signCommand,
  type Workspace,
} from './ack-load.js';
import { placeProcesses } from './ack-placement.js';
import { type AckFigures, type Capacity, summarize } from './ack-report.js';
import type { WorldInfo } from './ack-roles.js';
import type { Answer, WatchedChannel } from './ack-watch.js';
import { runIfMain } from './run-if-main.js';

const SIGNING_SECRET = 'bench-ack-signing-secret';
const ADMIN = 'UADMIN';
const MEMBER = 'UMEMBER';
const LOAD_CHANNEL = 'CACKLOAD';
const CLIENT_ID = 'acme-plumbing';
const IN_FLIGHT = 50;
/** 40 commands a second: a busy agency, far below saturation. */
const SAMPLE_GAP_MS = 25;
/** Connections to a target during a capacity step: enough that the client never queues what it sends. */
const CAPACITY_CONNECTIONS = 100;

interface AckBenchOptions {
  rounds?: number;
  perRound?: number;
  warmup?: number;
  samples?: number;
  cpuProfDir?: string;
  /** Seconds each capacity step sends for; 0 skips the capacity figure. */
  capacitySeconds?: number;
  capacityRates?: number[];
  /** Targets on a CPU of their own, the rest on the others (ack-placement.ts); default true. */
  pin?: boolean;
  /** The processes run from the TypeScript through tsx rather than compiled (ack-build.ts). */
  tsx?: boolean;
}

type Pools = { bot: Pool; bare: Pool };
type Text = Pick<CommandTarget, 'text' | 'user' | 'channel'>;

const loadTexts = (n: number): Text[] =>
  Array.from({ length: n }, (_, i) => ({
    text: i % 2 === 0 ? 'help' : 'keywords',
    user: MEMBER,
    channel: LOAD_CHANNEL,
  }));

const sampleChannel = (i: number) => `${i % 2 === 0 ? 'CACKH' : 'CACKK'}${String(i).padStart(4, '0')}`;

async function runAckBench(options: AckBenchOptions = {}): Promise<AckFigures> {
  const rounds = options.rounds ?? 2;
  const perRound = options.perRound ?? 2_500;
  // Long enough for V8 to have compiled both sides' hot paths: the figures are about a bot that has been up.
  const warmup = options.warmup ?? 1_000;
  const samples = options.samples ?? 200;
  const redisHandle = await ensureRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  // After Redis (one started here stays unpinned), before the children (they inherit this process's CPUs).
  const placement = placeProcesses(options.pin ?? true);
  const redis = createRedis(redisHandle.url);
  const prefix = `bench-ack-${randomUUID().slice(0, 8)}`;
  // The bot as `npm start` runs it (compiled), unless --tsx (ack-build.ts).
  const roles = options.tsx
    ? fileURLToPath(new URL('./ack-roles.ts', import.meta.url))
    : compileBench('ack-roles');
  const world = forkRole(roles, 'world');
  const bot = forkRole(roles, 'bot', [], placement.targets);
  const bare = forkRole(roles, 'bare', [], placement.targets);
  const answerer = forkRole(roles, 'answerer', [], placement.targets);
  const pools: Partial<Pools> = {};
  const capacityPools: Pool[] = [];
  try {
    const info = await world.call<WorldInfo>('start');
    const slackEnv = { botToken: info.botToken, apiUrl: info.apiUrl, signingSecret: SIGNING_SECRET };
    const [botPort, barePort, answererPort] = await Promise.all([
      bot.call<number>('start', {
        SLACK_BOT_TOKEN: info.botToken,
        SLACK_SIGNING_SECRET: SIGNING_SECRET,
        SLACK_API_URL: info.apiUrl,
        PORT: '0',
        REDIS_URL: redisHandle.url,
        REDIS_PREFIX: prefix,
        GATEWAY_ADMINS: ADMIN,
        GATEWAY_BASE_URL: info.sandboxUrl,
        GATEWAY_API_KEY: SANDBOX_KEYS.full,
      }),
      bare.call<number>('start', slackEnv),
      answerer.call<number>('start', slackEnv),
    ]);
    pools.bot = openPool(botPort, IN_FLIGHT);
    pools.bare = openPool(barePort, IN_FLIGHT);
    const ws: Workspace = info;
    const sign = async (texts: Text[]): Promise<SignedCommand[]> => {
      const minted = await world.call<Array<[string, string]>>(
        'mint',
        texts.map((t) => [t.channel, t.user]),
      );
      return texts.map((t, i) => {
        const [responseUrl, triggerId] = minted[i]!;
        return signCommand(SIGNING_SECRET, ws, { ...t, responseUrl, triggerId });
      });
    };
    // Every bot command is answered once (a response_url post or a channel post) or refused as busy; count
    // them to drain.
    let expected = 0;
    const drain = () => waitForAnswers(world, expected);
    const tally = () => world.call<{ busy: number; other: number }>('answers');

    // Bind the load channel and every keywords sample channel, as an admin would.
    const keywordChannels = Array.from({ length: samples }, (_, i) => sampleChannel(i)).filter(
      (_, i) => i % 2,
    );
    const binds = [LOAD_CHANNEL, ...keywordChannels].map((channel) => ({
      text: `use ${CLIENT_ID}`,
      user: ADMIN,
      channel,
    }));
    const bound = await sendClosedLoop(pools.bot, await sign(binds), 10);
    expected += binds.length;
    if (bound.errors) throw new Error(`${bound.errors} of the binding commands were not acked`);
    await waitForBindings(new BindingStore(redis, prefix), [LOAD_CHANNEL, ...keywordChannels]).catch(
      async (error: Error) => {
        const said = await world.call<string[]>('replies', LOAD_CHANNEL);
        throw new Error(`${error.message}; the bot replied: ${said.join(' | ') || '(nothing)'}`);
      },
    );

    // Warm-up: JIT, connections, Bolt's auth.test, the gateway client's discovery cache.
    await sendClosedLoop(pools.bare, await sign(loadTexts(warmup)), IN_FLIGHT);
    await sendClosedLoop(pools.bot, await sign(loadTexts(warmup)), IN_FLIGHT);
    expected += warmup;
    await drain();

    const measured = { bot: [] as Float64Array[], bare: [] as Float64Array[] };
    const usage = { bot: [] as Usage[], bare: [] as Usage[] };
    const children = { bot, bare };
    let errors = 0;
    let busy = 0;
    let wrong = 0;
    const drainMs: number[] = [];
    if (options.cpuProfDir) await bot.call('profileStart');
    for (let round = 0; round < rounds; round++) {
      // Alternate which goes first so drift (other load on the machine, GC) does not favour one side.
      const order: Array<keyof Pools> = round % 2 === 0 ? ['bare', 'bot'] : ['bot', 'bare'];
      for (const side of order) {
        const commands = await sign(loadTexts(perRound));
        await children[side].call('usage');
        const result = await sendClosedLoop(pools[side]!, commands, IN_FLIGHT);
        measured[side].push(result.latencies);
        errors += result.errors;
        if (side === 'bot') {
          // Let the bot finish its answers before the next round, so the bare app is not measured
          // while the bot process still competes for the CPU.
          const before = await tally();
          expected += perRound;
          const started = performance.now();
          await drain();
          drainMs.push(performance.now() - started);
          const after = await tally();
          busy += after.busy - before.busy;
          wrong += after.other - before.other;
        }
        // After the drain: the bot's CPU per command includes the answer it owes.
        usage[side].push(await children[side].call<Usage>('usage'));
      }
    }
    if (options.cpuProfDir)
      console.log(`bot CPU profile: ${await bot.call<string>('profileStop', options.cpuProfDir)}`);

    // Answers: a paced run (one command every SAMPLE_GAP_MS, so queueing does not dominate), each in a channel
    // of its own.
    await world.call('reset');
    const sampleTexts: Text[] = Array.from({ length: samples }, (_, i) => ({
      text: i % 2 === 0 ? 'help' : 'keywords',
      user: MEMBER,
      channel: sampleChannel(i),
    }));
    const watched: WatchedChannel[] = sampleTexts.map((t) => ({
      channel: t.channel,
      kind: t.text as WatchedChannel['kind'],
    }));
    await world.call('watch', watched);
    const paced = await sendPaced(pools.bot, await sign(sampleTexts), SAMPLE_GAP_MS);
    const answers = await world.call<Answer[]>('collect', 15_000);
    errors += paced.errors;
    const sentAt = new Map(sampleTexts.map((t, i) => [t.channel, paced.sentAt[i]!]));
    const answerMs = { help: [] as number[], keywords: [] as number[] };
    let answerFailures = 0;
    for (const a of answers) {
      if (!a.ok || a.at === undefined) answerFailures++;
      else answerMs[a.kind].push(a.at - sentAt.get(a.channel)!);
    }
    const capacity = options.capacitySeconds
      ? await capacityFigures(world, sign, [botPort, answererPort], capacityPools, {
          seconds: options.capacitySeconds,
          rates: options.capacityRates,
        })
      : undefined;
    return summarize({
      placement: `${placement.said}; every process ${options.tsx ? 'through tsx (--tsx)' : 'compiled by tsc, as npm start runs the bot'}`,
      capacity,
      busy,
      wrong,
      bot: concat(measured.bot),
      bare: concat(measured.bare),
      botRounds: measured.bot,
      bareRounds: measured.bare,
      errors,
      answerFailures,
      answerMs,
      drainMs,
      usage,
      perRound,
      inFlight: IN_FLIGHT,
      samples,
      sampleGapMs: SAMPLE_GAP_MS,
    });
  } finally {
    await Promise.all([pools.bot?.close(), pools.bare?.close(), ...capacityPools.map((p) => p.close())]);
    await Promise.all([bot.stop(), bare.stop(), answerer.stop()]);
    await world.stop();
    await deleteByPrefix(redis, prefix).catch(() => 0);
    await redis.quit().catch(() => redis.disconnect());
    await redisHandle.stop();
    placement.restore();
  }
}

function concat(parts: Float64Array[]): Float64Array {
  const out = new Float64Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * The capacity ladder (bench/ack-capacity.ts) against the bot and the bare answering app, one after the other,
 * the same mix of commands as the rounds: help answered through the response_url, keywords in the channel.
 */
async function capacityFigures(
  world: RoleChild,
  sign: (texts: Text[]) => Promise<SignedCommand[]>,
  [botPort, answererPort]: [number, number],
  opened: Pool[],
  options: { seconds: number; rates?: number[] },
): Promise<Capacity> {
  const commands = async (n: number): Promise<CapacityCommand[]> => {
    const texts = loadTexts(n);
    const signed = await sign(texts);
    return signed.map((c, i) => ({
      signed: c,
      responseUrl: new URLSearchParams(c.body).get('response_url') ?? '',
      ...(texts[i]?.text === 'keywords' ? { postsIn: LOAD_CHANNEL } : {}),
    }));
  };
  const pool = (port: number) => {
    const p = openPool(port, CAPACITY_CONNECTIONS);
    opened.push(p);
    return p;
  };
  const bot = await measureCapacity(world, { pool: pool(botPort), commands }, options.seconds, options.rates);
  const bare = await measureCapacity(
    world,
    { pool: pool(answererPort), commands },
    options.seconds,
    options.rates,
  );
  return {
    bot: bot.capacity,
    bare: bare.capacity,
    botSteps: bot.steps,
    bareSteps: bare.steps,
    botFloor: bot.floor,
    bareFloor: bare.floor,
  };
}

async function waitForAnswers(world: RoleChild, expected: number, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { answered, busy, failed } = await world.call<{ answered: number; busy: number; failed: number }>(
      'answers',
    );
    if (failed > 0) throw new Error(`${failed} of the bot's answers were refused by the Slack stand-in`);
    if (answered + busy >= expected) return;
    if (Date.now() > deadline) throw new Error(`the bot answered ${answered} of ${expected} commands`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function waitForBindings(store: BindingStore, channels: string[], timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (const channel of channels) {
    while ((await store.get(channel))?.clientId !== CLIENT_ID) {
      if (Date.now() > deadline) throw new Error(`channel ${channel} was not bound to ${CLIENT_ID}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

/** Entry for `npx tsx bench/ack.ts` and for bench/run-all.ts. */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<AckFigures> {
  const quick = argv.includes('--quick');
  const cpuProfDir = argv.find((a) => a.startsWith('--cpu-prof='))?.slice('--cpu-prof='.length);
  const noCapacity = argv.includes('--no-capacity');
  const pin = !argv.includes('--no-pin');
  const tsx = argv.includes('--tsx');
  const capacitySeconds = noCapacity ? 0 : quick ? 1 : 4;
  const figures = await runAckBench(
    quick
      ? {
          rounds: 2,
          perRound: 500,
          warmup: 100,
          samples: 40,
          cpuProfDir,
          capacitySeconds,
          capacityRates: [50, 200],
          pin,
          tsx,
        }
      : { cpuProfDir, capacitySeconds, pin, tsx },
  );
  console.log(figures.summary);
  if (figures.errors > 0 || figures.answerFailures > 0) process.exitCode = 1;
  return figures;
}

runIfMain(import.meta.url, () => main());
