/**
 * The agency's Monday morning: compiled processes as in production (`node dist/main.js`): 2 workers,
 * 1 scheduler and 1 web on one Redis, the sandbox gateway in a process of its own (dist/sandbox/cli.js, 50 ms a
 * page) and the local Slack stand-in in this process, paced as Slack is (one message a second a channel, 429 with
 * Retry-After beyond). 500 clients (490 of 1–5k keyword rows and 50–200 reviews, 10 of 120,000 keyword rows: the
 * sandbox's synthetic clients), one channel each, each subscribed to daily reviews and rankings digests at the
 * same minute (a real minute, a little ahead: the scheduler's own job schedulers fire them). Prints the time from
 * that minute to the last digest posted, gateway reads in flight (max, counted by the sandbox) against the fleet
 * cap, peak RSS per worker, Slack posts per channel per second (max) and the 429s, digests lost and posted twice;
 * then the same with a worker SIGKILLed mid-run. `--curve`: the same for 50, 200 and 500 clients, and one client
 * of 10k, 100k and 1M keyword rows: its rankings digest's time and RSS beside paging the same rows alone.
 *
 * Run: npx tsx bench/fleet.ts [--clients=500] [--spread=2m] [--curve [--curve-clients=50,200,500]]
 * Redis is REDIS_URL or 127.0.0.1:6379 (keys under a unique prefix, deleted afterwards). The machine's CPU is
 * shared: times are inflated by whatever else runs.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { BindingStore } from '../src/bindings/binding-store.js';
import { DigestStore } from '../src/digests/store.js';
import { type FakeSlack, startFakeSlack } from '../src/local/fake-slack/index.js';
import { createRedis, deleteByPrefix } from '../src/redis/connection.js';
import { runClientCurve } from './fleet-client.js';
import {
  digestPosts,
  fleetClients,
  type Proc,
  slackPace,
  startProc,
  stopProc,
  waitFor,
} from './fleet-parts.js';
import { runIfMain } from './run-if-main.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const FLEET_CAP = 16;
const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

interface Shared {
  slack: FakeSlack;
  sandboxOrigin: string;
  spread: string;
}

export interface FleetFigures {
  clients: number;
  killed: boolean;
  lastPostSec: number;
  readsMax: number;
  workerPeakRssMb: number[];
  postsPerChannelSecondMax: number;
  slack429: number;
  lost: number;
  twice: number;
}

/** One channel per client, bound, subscribed to daily reviews and rankings at `at` (UTC). */
async function subscribe(prefix: string, run: string, clients: string[], at: string): Promise<string[]> {
  const redis = createRedis(REDIS_URL);
  const bindings = new BindingStore(redis, prefix);
  const digests = new DigestStore(redis, prefix);
  const channels = clients.map((_, n) => `C${run}F${n}`);
  const now = new Date().toISOString();
  for (const [n, clientId] of clients.entries()) {
    const channel = channels[n] as string;
    await bindings.set({ channel, clientId, clientLabel: `Client ${n}`, boundBy: 'UADMIN', boundAt: now });
    for (const kind of ['reviews', 'rankings'] as const)
      await digests.save({
        channel,
        kind,
        schedule: { kind: 'daily', at },
        tz: 'UTC',
        filters: {},
        createdBy: 'UADMIN',
        createdAt: now,
      });
  }
  await redis.quit();
  return channels;
}

async function startRoles(shared: Shared, prefix: string): Promise<Proc[]> {
  const base = {
    SLACK_BOT_TOKEN: shared.slack.botToken,
    SLACK_SIGNING_SECRET: 'bench-fleet-signing-secret',
    SLACK_API_URL: shared.slack.apiUrl,
    REDIS_URL,
    REDIS_PREFIX: prefix,
    GATEWAY_BASE_URL: `${shared.sandboxOrigin}/gateway`,
    GATEWAY_API_KEY: 'sandbox-key',
    GATEWAY_ADMINS: 'UADMIN',
    GATEWAY_FLEET_READ_CONCURRENCY: String(FLEET_CAP),
    DIGEST_SPREAD: shared.spread,
    LOG_LEVEL: 'warn',
  };
  const roles = ['web', 'scheduler', 'worker', 'worker'];
  const procs: Proc[] = [];
  for (const [i, role] of roles.entries()) {
    const env = { ...base, ROLE: role, PORT: String(await freePort()) };
    procs.push(startProc(`${role}${i}`, 'main.js', env));
  }
  return procs;
}

async function readsMax(origin: string): Promise<number> {
  const answer = await fetch(`${origin}/__sandbox/counts`);
  return ((await answer.json()) as { readsInFlight: { max: number } }).readsInFlight.max;
}

/** Waits for every digest, SIGKILLing the first worker once a third of them are out when `kill`. */
async function awaitDigests(
  shared: Shared,
  channels: Set<string>,
  workers: Proc[],
  kill: boolean,
  dueMs: number,
) {
  const wanted = channels.size * 2;
  let killed = false;
  return waitFor(
    'every digest',
    () => {
      const posts = digestPosts(shared.slack.calls, channels);
      const kinds = new Set(posts.map((p) => `${p.channel}:${p.kind}`));
      if (kill && !killed && kinds.size >= wanted / 3) {
        killed = true;
        workers[0]?.child.kill('SIGKILL');
      }
      return kinds.size >= wanted ? posts : undefined;
    },
    dueMs - Date.now() + 12 * 60_000,
  ).catch(() => digestPosts(shared.slack.calls, channels));
}

export async function runFleet(shared: Shared, clients: number, kill: boolean): Promise<FleetFigures> {
  const run = randomUUID()
    .slice(0, 4)
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, 'X');
  const prefix = `bench-fleet-${run.toLowerCase()}`;
  await fetch(`${shared.sandboxOrigin}/__sandbox/reset`, { method: 'POST' });
  // The due minute: far enough ahead for the scheduler to upsert every job scheduler first.
  const dueMs = Math.ceil((Date.now() + 60_000 + clients * 60) / 60_000) * 60_000;
  const at = new Date(dueMs).toISOString().slice(11, 16);
  const channels = new Set(await subscribe(prefix, run, fleetClients(clients), at));
  const procs = await startRoles(shared, prefix);
  const workers = procs.filter((p) => p.name.startsWith('worker'));
  try {
    const posts = await awaitDigests(shared, channels, workers, kill, dueMs);
    const once = new Set(posts.map((p) => `${p.channel}:${p.kind}`));
    const pace = slackPace(shared.slack.calls, channels);
    return {
      clients,
      killed: kill,
      lastPostSec: Math.round((Math.max(...posts.map((p) => p.at)) - dueMs) / 100) / 10,
      readsMax: await readsMax(shared.sandboxOrigin),
      workerPeakRssMb: workers.map((w) => Math.round(w.peakRssMb)),
      postsPerChannelSecondMax: pace.maxPerSecond,
      slack429: pace.refused,
      lost: channels.size * 2 - once.size,
      twice: posts.length - once.size,
    };
  } finally {
    await Promise.all(procs.map(stopProc));
    const redis = createRedis(REDIS_URL);
    await deleteByPrefix(redis, prefix);
    await redis.quit();
  }
}

function line(f: FleetFigures): string {
  return [
    `${f.clients} clients${f.killed ? ', a worker SIGKILLed mid-run' : ''}:`,
    `last digest ${f.lastPostSec}s after the due minute (goal 600s);`,
    `gateway reads in flight max ${f.readsMax} (fleet cap ${FLEET_CAP});`,
    `peak RSS per worker ${f.workerPeakRssMb.join(' / ')} MB (goal < 256);`,
    `Slack posts per channel per second max ${f.postsPerChannelSecondMax}, 429s ${f.slack429};`,
    `lost ${f.lost}, posted twice ${f.twice}`,
  ].join(' ');
}

async function main(): Promise<void> {
  const { execFileSync } = await import('node:child_process');
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
  const slack = await startFakeSlack({ channelPace: { perSecond: 1, burst: 2 } });
  const sandboxPort = await freePort();
  const sandbox = startProc('sandbox', 'sandbox/cli.js', {
    SANDBOX_PORT: String(sandboxPort),
    SANDBOX_LATENCY_MS: '50',
  });
  const shared: Shared = {
    slack,
    sandboxOrigin: `http://127.0.0.1:${sandboxPort}`,
    spread: arg('spread') ?? '2m',
  };
  await waitFor('the sandbox', () => (/listening/.test(sandbox.output()) ? true : undefined), 30_000);
  process.stdout.write(
    `bench/fleet: DIGEST_SPREAD=${shared.spread}; CPU shared with other work on this machine\n`,
  );
  try {
    if (process.argv.includes('--curve')) {
      // The one-client table first, while this process holds nothing else (its RSS is measured here).
      process.stdout.write(await runClientCurve(`${shared.sandboxOrigin}/gateway`));
      const sizes = (arg('curve-clients') ?? '50,200,500').split(',').map(Number);
      for (const n of sizes) process.stdout.write(`${line(await runFleet(shared, n, false))}\n`);
      return;
    }
    const clients = Number(arg('clients') ?? 500);
    process.stdout.write(`${line(await runFleet(shared, clients, false))}\n`);
    process.stdout.write(`${line(await runFleet(shared, clients, true))}\n`);
  } finally {
    await stopProc(sandbox);
    await slack.close();
  }
}

runIfMain(import.meta.url, main);
