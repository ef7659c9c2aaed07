import { openJobs, type Sent } from '../fleet/audit.js';
import type { Fleet, FleetOptions, WorkerTuning } from '../fleet/fleet.js';
import { ACTION_COMMANDS, sendAll } from '../fleet/mixed.js';
import type { PrivateRedis } from '../fleet/private-redis.js';
import { CHANNEL, type FaultRow, runRow } from './row.js';

/**
 * The fault rows that run the bot's real processes. Each starts its own fleet (fresh stand-in, sandbox and
 * Redis prefix), drives it while a fault strikes, lets the jobs settle and audits what Slack and the gateway
 * saw. Sizes come from the caller (small in CI, full on demand).
 */

/** Short locks and backoffs, so a killed worker's job is picked up in about a second, not 30. */
const TUNING: WorkerTuning = {
  reconcileGraceMs: 100,
  backoffMs: 10,
  lockDurationMs: 2_000,
  stalledIntervalMs: 500,
  leaseMs: 2_000,
};

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
    tuning: TUNING,
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

/** Workers SIGKILLed while their POSTs are with the gateway, and replaced; `kills` times. */
export function killWorkers(redis: PrivateRedis, jobs: number, kills: number): Promise<FaultRow> {
  return runRow(
    'workers SIGKILLed mid-POST',
    `${kills} kills, ${jobs} jobs`,
    // Two jobs at a time per worker, each POST held 800 ms: a backlog that outlasts the kills, and a worker
    // that is always mid-POST when it dies.
    fleetOptions('kill', redis, {
      workers: 3,
      knobs: { latencyMs: 800 },
      tuning: { ...TUNING, concurrency: 2 },
      env: { GATEWAY_ACTION_TIMEOUT: '3s' },
    }),
    async (fleet) => {
      let done = 0;
      let cut = 0;
      let sending = true;
      const killer = (async () => {
        while (done < kills && (sending || (await openJobs(fleet)) > 0)) {
          // A POST the gateway holds (its latency) while its worker dies.
          const inFlight = fleet.sandbox.requests().filter((r) => r.method === 'POST' && r.status === 0);
          const victim = fleet.workers[0];
          if (inFlight.length === 0 || !victim) {
            await sleep(20);
            continue;
          }
          const before = fleet.sandbox.requests().filter((r) => r.callerGone).length;
          await fleet.kill(victim);
          done += 1;
          await sleep(100);
          cut += fleet.sandbox.requests().filter((r) => r.callerGone).length - before;
          await fleet.spawn('worker');
        }
      })();
      // Paced at about two thirds of what the workers can do (3 × 2 POSTs of 800 ms), so they are nearly always
      // mid-POST, and the run lasts as long as the kills do (each waits for its replacement to start).
      const sent = await sendAll(fleet, jobs, (i) => actionCommand(i, 'kl'), {
        channel: CHANNEL,
        inFlight: 4,
        between: () => sleep((kills * 4_000 * 4) / jobs),
      });
      sending = false;
      await killer;
      return { sent, note: `${done} kills (of ${kills} asked) cut ${cut} POSTs mid-flight` };
    },
    120_000 + jobs * 200,
  );
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
