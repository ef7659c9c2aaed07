import { Queue } from 'bullmq';
import { ACTION_QUEUE } from '../../src/jobs/job-data.js';
import { createRedis } from '../../src/redis/connection.js';
import type { Sent } from '../fleet/audit.js';
import type { Fleet, FleetOptions, RoleProcess } from '../fleet/fleet.js';
import { ACTION_COMMANDS, sendAll } from '../fleet/mixed.js';
import type { PrivateRedis } from '../fleet/private-redis.js';
import { CHANNEL, FAULT_TUNING, type FaultRow, runRow } from './row.js';
import { type GatewayTap, startTap } from './tap.js';

/**
 * The fault rows that run the bot's real processes. Each starts its own fleet (fresh stand-in, sandbox and
 * Redis prefix), drives it while a fault strikes, lets the jobs settle and audits what Slack and the gateway
 * saw. Sizes come from the caller (small in CI, full on demand).
 */

const actionCommand = (i: number, tag: string) => {
  const marker = `${tag}${String(i).padStart(5, '0')}z`;
  const make = ACTION_COMMANDS[i % ACTION_COMMANDS.length];
  if (!make) throw new Error('no action command');
  return { marker, ...make(marker) };
};

function fleetOptions(name: string, redis: PrivateRedis, extra: Partial<FleetOptions> = {}): FleetOptions {
  return {
    name,
    redisUrl: redis.url,
    web: 1,
    workers: 2,
    tuning: FAULT_TUNING,
    env: { GATEWAY_ACTION_TIMEOUT: '1s', LOG_LEVEL: 'info' },
    ...extra,
  };
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** N action jobs while the gateway answers 5xx or times out 30 % of the time and status:"error" 10 %. */
export function gatewayFaults(redis: PrivateRedis, jobs: number): Promise<FaultRow> {
  return runRow(
    'gateway 5xx/timeouts 30 %, status:"error" 10 %',
    `${jobs} jobs`,
    fleetOptions('gateway', redis),
    async (fleet) => {
      fleet.sandbox.setKnobs({ errorRate: 0.15, timeoutRate: 0.1, dropRate: 0.05, statusErrorRate: 0.1 });
      const sent = await sendAll(fleet, jobs, (i) => actionCommand(i, 'gw'), { channel: CHANNEL });
      return { sent, note: () => faultCounts(fleet) };
    },
    120_000 + jobs * 200,
  );
}

function faultCounts(fleet: Fleet): string {
  const posts = fleet.sandbox.requests().filter((r) => r.method === 'POST');
  const by = (f: string) => posts.filter((r) => r.fault === f).length;
  return `gateway POSTs ${posts.length}: 500 ${by('500')}, timeout ${by('timeout')}, dropped ${by('drop_after_action')}, status:error ${by('status_error')}`;
}

const KILL_WORKERS = 3;
/** The gateway holds every POST this long while kills are due: the window a kill lands in. */
const KILL_LATENCY_MS = 800;
/** … and this long once every kill has landed, so the jobs left drain quickly. */
const DRAIN_LATENCY_MS = 100;
/** Replacements starting at once, at most: a kill waits while this many are (each start is a CPU burst). */
const KILL_STARTING_MAX = 2;
/** Jobs kept back for every kill still due, while replacements start: enough to fill the workers' slots. */
const KILL_RESERVE = KILL_WORKERS * 2 + 2;

/**
 * Workers SIGKILLed while a POST of theirs is with the gateway, and replaced at once; `kills` kills that land
 * mid-POST. Each worker reaches the gateway through its own tap (tap.ts), so the killer knows who has a POST
 * in flight: it kills the oldest worker that has one, and reads back from the tap that the POST was cut. A
 * kill that cut nothing does not count (another follows); the row misses its goal when fewer than `kills`
 * landed. Jobs are sent only to keep the workers' slots full, and held back while replacements start, so the
 * jobs outlast the kills however slowly a worker starts.
 */
export function killWorkers(redis: PrivateRedis, jobs: number, kills: number): Promise<FaultRow> {
  return runRow(
    'workers SIGKILLed mid-POST',
    `${kills} kills, ${jobs} jobs`,
    // The workers are started by the drive, each behind its own tap.
    fleetOptions('kill', redis, {
      workers: 0,
      knobs: { latencyMs: KILL_LATENCY_MS },
      tuning: { ...FAULT_TUNING, concurrency: 2 },
      env: { GATEWAY_ACTION_TIMEOUT: '3s' },
    }),
    async (fleet) => {
      const connection = createRedis(redis.url);
      connection.on('error', () => {});
      const queue = new Queue(ACTION_QUEUE, { connection, prefix: fleet.prefix });
      const taps = new Map<RoleProcess, GatewayTap>();
      const closeTaps = async () => {
        await Promise.all([...taps.values()].map((t) => t.close()));
      };
      try {
        return { ...(await killDrive(fleet, queue, taps, jobs, kills)), after: closeTaps };
      } catch (error) {
        await closeTaps();
        throw error;
      } finally {
        await queue.close();
        await connection.quit().catch(() => connection.disconnect());
      }
    },
    120_000 + jobs * 200,
  );
}

async function killDrive(
  fleet: Fleet,
  queue: Queue,
  taps: Map<RoleProcess, GatewayTap>,
  jobs: number,
  kills: number,
) {
  const ended = async () =>
    Object.values(await queue.getJobCounts('completed', 'failed')).reduce((a, b) => a + b, 0);
  const open = async () =>
    Object.values(await queue.getJobCounts('waiting', 'delayed', 'active', 'prioritized')).reduce(
      (a, b) => a + b,
      0,
    );
  let starting = 0;
  const replacements: Promise<unknown>[] = [];
  /** A worker behind its own tap; resolves once it serves. */
  const spawnWorker = async () => {
    starting += 1;
    const tap = await startTap(fleet.sandbox.url).catch((error: unknown) => {
      starting -= 1;
      throw error;
    });
    fleet.options.env = { ...fleet.options.env, GATEWAY_BASE_URL: tap.url };
    const serving = fleet.spawn('worker').finally(() => {
      starting -= 1;
    });
    const proc = fleet.processes.at(-1);
    if (proc) taps.set(proc, tap);
    return serving;
  };
  await Promise.all(Array.from({ length: KILL_WORKERS }, spawnWorker));

  let landed = 0;
  let attempts = 0;
  let cut = 0;
  let killing = true;
  let sending = true;
  let begun = 0;
  const gaps: number[] = [];
  const misses: string[] = [];
  const began = Date.now();
  const killer = (async () => {
    const deadline = began + 60_000 + kills * 20_000;
    let last = began;
    while (landed < kills && Date.now() < deadline) {
      if (!sending && (await open()) === 0) break;
      // The oldest worker that serves and has a POST the gateway will hold a while yet (one about to be
      // answered may have its answer on the way when the kill strikes).
      const victim = fleet.workers.find(
        (w) => w.port > 0 && (taps.get(w)?.postsSentWithin(KILL_LATENCY_MS / 2) ?? 0) > 0,
      );
      const tap = victim && taps.get(victim);
      if (!victim || !tap || starting >= KILL_STARTING_MAX) {
        await sleep(5);
        continue;
      }
      const held = tap.postsInFlight();
      const cutBefore = tap.postsCut();
      await fleet.kill(victim);
      attempts += 1;
      // Replaced at once; its start is not awaited.
      const replacement = spawnWorker();
      replacement.catch(() => {});
      replacements.push(replacement);
      // Its sockets close as it dies: the tap sees the POSTs it held go unanswered.
      let mine = 0;
      for (let waited = 0; waited < 2_000 && mine === 0; waited += 10) {
        await sleep(10);
        mine = tap.postsCut() - cutBefore;
      }
      cut += mine;
      if (mine > 0) {
        landed += 1;
        gaps.push(Date.now() - last);
        last = Date.now();
      } else misses.push(`kill ${attempts} (${victim.name}) cut no POST (${held} were in flight)`);
    }
    killing = false;
    // The kills are done: the jobs left drain without the long hold.
    fleet.sandbox.setKnobs({ latencyMs: DRAIN_LATENCY_MS });
  })();
  // While kills are due, jobs only to fill every worker's slots, and while replacements start none that the
  // kills left would need. Jobs are counted from the send (the web queues each after its ack).
  const backlog = () => 2 * fleet.workers.length + 1;
  const scarce = () => starting > 0 && jobs - begun <= (kills - landed) * KILL_RESERVE;
  const sent = await sendAll(fleet, jobs, (i) => actionCommand(i, 'kl'), {
    channel: CHANNEL,
    inFlight: 4,
    between: async () => {
      const until = Date.now() + 60_000;
      while (killing && Date.now() < until && (scarce() || begun - (await ended()) >= backlog()))
        await sleep(20);
      begun += 1;
    },
  });
  sending = false;
  await killer;
  const started = await Promise.allSettled(replacements);
  const failed = started.filter((r) => r.status === 'rejected').length;
  const gone = fleet.sandbox.requests().filter((r) => r.method === 'POST' && r.callerGone).length;
  const sorted = [...gaps].sort((a, b) => a - b);
  const seconds = (ms: number | undefined) => `${((ms ?? 0) / 1_000).toFixed(1)} s`;
  const summary =
    `${landed} of ${kills} kills landed mid-POST (${attempts} kills in all), cutting ${cut} POSTs ` +
    `(the gateway saw ${gone} callers go); a kill every ${seconds(sorted[Math.floor(sorted.length / 2)])} ` +
    `(median, slowest ${seconds(sorted.at(-1))})`;
  return {
    sent,
    note: summary,
    details: [`kills: ${summary}`, ...misses.slice(0, 5)],
    missed: [
      ...(landed < kills ? [`only ${landed} of ${kills} kills landed mid-POST`] : []),
      ...(failed ? [`${failed} replacement workers did not start`] : []),
    ],
  };
}

/** Redis stopped and started again (AOF) while commands arrive and jobs run. */
export function restartRedis(redis: PrivateRedis, jobs: number): Promise<FaultRow> {
  return runRow(
    'Redis restarted mid-run (AOF on)',
    `${jobs} jobs, 1 restart`,
    fleetOptions('redis', redis, { knobs: { latencyMs: 100 } }),
    async (fleet) => {
      let restarted = false;
      const sent: Sent[] = await sendAll(fleet, jobs, (i) => actionCommand(i, 'rd'), {
        channel: CHANNEL,
        inFlight: 4,
        between: async (i) => {
          await sleep(30);
          if (!restarted && i >= jobs / 3) {
            restarted = true;
            // Not awaited: commands keep arriving while Redis is down.
            void redis.restart(1_500);
          }
        },
      });
      return { sent, note: 'Redis down 1.5 s' };
    },
    120_000 + jobs * 200,
  );
}

/** Slack answering 429 with Retry-After, and 503, to the bot's posts and updates while jobs run. */
export function slackFaults(redis: PrivateRedis, jobs: number): Promise<FaultRow> {
  return runRow(
    'Slack 429 (Retry-After) and 5xx',
    `${jobs} jobs`,
    fleetOptions('slack', redis, { knobs: { latencyMs: 50 } }),
    async (fleet) => {
      let stop = false;
      let outages = 0;
      const methods = ['chat.postMessage', 'chat.update'];
      const weather = (async () => {
        while (!stop) {
          for (const m of methods) fleet.slack.simulate.ratelimit(m, 3, 1);
          await sleep(600);
          if (stop) break;
          fleet.slack.simulate.outage(methods, 'error');
          outages += 1;
          await sleep(500);
          fleet.slack.simulate.restore();
          await sleep(600);
        }
        fleet.slack.simulate.restore();
      })();
      const sent = await sendAll(fleet, jobs, (i) => actionCommand(i, 'sk'), {
        channel: CHANNEL,
        inFlight: 4,
        between: () => sleep(250),
      });
      // Keep the weather going while the last jobs run, then clear it for the settle.
      await sleep(3_000);
      stop = true;
      await weather;
      const limited = fleet.slack.calls.filter((c) => c.error === 'ratelimited').length;
      const failed = fleet.slack.calls.filter((c) => c.error === 'outage_error').length;
      return { sent, note: `Slack answered 429 ${limited} times, 503 ${failed} times (${outages} outages)` };
    },
    120_000 + jobs * 200,
  );
}
