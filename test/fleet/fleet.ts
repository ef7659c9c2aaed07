import { type ChildProcess, spawn } from 'node:child_process';
import { request } from 'undici';
import { SlackDriver } from '../../src/local/driver.js';
import { type FakeSlack, startFakeSlack } from '../../src/local/fake-slack/index.js';
import { createRedis, deleteByPrefix, type RedisTarget } from '../../src/redis/connection.js';
import { type Sandbox, type SandboxKnobs, startSandbox } from '../../src/sandbox/index.js';
import { nodeArgsFor } from '../helpers/compiled.js';
import { within } from './deadline.js';

/**
 * The bot as several real processes (web, worker, scheduler roles: `node --import tsx`) on one Redis, with
 * the world outside it in this process: the local Slack stand-in and the sandbox gateway, whose logs say
 * what Slack and the gateway received. Used by the multi-process test and the fault suite (`npm run faults`).
 */

const FLEET_SECRET = 'fleet-signing-secret';
export const FLEET_ADMIN = 'UADMIN';
export const FLEET_MEMBER = 'UMEMBER';

export type Role = 'web' | 'worker' | 'scheduler';

/** Worker tuning for a fault run (see role.ts); without it the processes run src/main.ts itself. */
export interface WorkerTuning {
  reconcileGraceMs?: number;
  backoffMs?: number;
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  leaseMs?: number;
  concurrency?: number;
}

export interface FleetOptions {
  name: string;
  redisUrl: string;
  /** A Redis Cluster or Sentinels instead of the one Redis at redisUrl (the prefix then gets a hash tag). */
  redisTarget?: RedisTarget;
  /** REDIS_PREFIX, when the test must know it before the start (a random one by default). */
  prefix?: string;
  web?: number;
  workers?: number;
  schedulers?: number;
  knobs?: Partial<SandboxKnobs>;
  tuning?: WorkerTuning;
  /** More environment for every role (GATEWAY_ACTION_TIMEOUT, …). */
  env?: Record<string, string>;
  /** Assistant sign-in on: the app's OAuth client and Slack's web host are the stand-in's. */
  signIn?: boolean;
}

export interface RoleProcess {
  role: Role;
  name: string;
  child: ChildProcess;
  port: number;
  /** Set when the fleet itself stopped or killed it; any other exit is a crash. */
  expected: boolean;
  exitCode?: number | null;
  exited: Promise<void>;
  /** The last 64 KB of its output. */
  output(): string;
  /** Error lines it logged about a listener or the process itself ('unhandled …', fatal). */
  unhandled: number;
  /** Lines with a Redis Cluster refusal (MOVED, CROSSSLOT): a key outside the prefix's slot, or a wrong client. */
  clusterRefusals: number;
}

/** The environment that points a role at the target's Cluster nodes or Sentinels. */
function redisTargetEnv(target: RedisTarget | undefined): Record<string, string> {
  const list = (nodes: RedisTarget['clusterNodes']) =>
    (nodes ?? []).map((n) => `${n.host}:${n.port}`).join(',');
  if (target?.clusterNodes?.length) return { REDIS_CLUSTER_NODES: list(target.clusterNodes) };
  if (target?.sentinels?.length)
    return {
      REDIS_SENTINELS: list(target.sentinels),
      REDIS_SENTINEL_NAME: target.sentinelName ?? 'mymaster',
    };
  return {};
}

// tsx compiles src/ as a role loads: six starting at once on two busy cores took over a minute.
const ROLE_START_MS = 150_000;
/** After SIGKILL a process is gone at once; after SIGTERM it has its graceful stop, then SIGKILL. */
const EXIT_MS = 30_000;
/** The stand-ins' servers closing, and the run's keys deleted. */
const CLEANUP_MS = 30_000;

export class Fleet {
  readonly processes: RoleProcess[] = [];
  private turn = 0;
  private readonly drivers = new Map<RoleProcess, SlackDriver>();
  private serial = 0;

  private constructor(
    readonly options: FleetOptions,
    readonly slack: FakeSlack,
    readonly sandbox: Sandbox,
    readonly prefix: string,
  ) {}

  static async start(options: FleetOptions): Promise<Fleet> {
    const slack = await startFakeSlack();
    const sandbox = await startSandbox({ knobs: options.knobs ?? {} });
    const name = `fleet-${options.name}-${Math.random().toString(36).slice(2, 8)}`;
    const prefix = options.prefix ?? (options.redisTarget?.clusterNodes?.length ? `{${name}}` : name);
    const fleet = new Fleet(options, slack, sandbox, prefix);
    try {
      const starts: Promise<RoleProcess>[] = [];
      for (let i = 0; i < (options.web ?? 1); i++) starts.push(fleet.spawn('web'));
      for (let i = 0; i < (options.workers ?? 1); i++) starts.push(fleet.spawn('worker'));
      for (let i = 0; i < (options.schedulers ?? 0); i++) starts.push(fleet.spawn('scheduler'));
      await Promise.all(starts);
    } catch (error) {
      await fleet.stop();
      throw error;
    }
    return fleet;
  }

  /** Where this fleet's Redis is, for connections of the test itself. */
  get redisTarget(): string | RedisTarget {
    return this.options.redisTarget ?? this.options.redisUrl;
  }

  get web(): RoleProcess[] {
    return this.live('web');
  }

  get workers(): RoleProcess[] {
    return this.live('worker');
  }

  live(role: Role): RoleProcess[] {
    return this.processes.filter((p) => p.role === role && p.exitCode === undefined);
  }

  /** The next web process's driver, round robin: what a load balancer in front of them does. */
  driver(): SlackDriver {
    const web = this.web;
    const target = web[this.turn++ % web.length];
    if (!target) throw new Error('fleet: no web process is running');
    let driver = this.drivers.get(target);
    if (!driver) {
      driver = new SlackDriver({
        eventsUrl: `http://127.0.0.1:${target.port}/slack/events`,
        signingSecret: FLEET_SECRET,
        slack: this.slack,
      });
      this.drivers.set(target, driver);
    }
    return driver;
  }

  /** Starts one more process of a role and resolves once it serves (its port is logged). */
  async spawn(role: Role): Promise<RoleProcess> {
    const name = `${role}-${++this.serial}`;
    const { tuning } = this.options;
    const entry = tuning ? 'test/fleet/role.ts' : 'src/main.ts';
    const child = spawn(process.execPath, nodeArgsFor(entry), {
      env: {
        PATH: process.env.PATH ?? '',
        SLACK_BOT_TOKEN: this.slack.botToken,
        SLACK_SIGNING_SECRET: FLEET_SECRET,
        SLACK_API_URL: this.slack.apiUrl,
        PORT: '0',
        REDIS_URL: this.options.redisUrl,
        REDIS_PREFIX: this.prefix,
        ROLE: role,
        GATEWAY_BASE_URL: this.sandbox.url,
        GATEWAY_API_KEY: 'sandbox-key',
        GATEWAY_ADMINS: FLEET_ADMIN,
        GATEWAY_ACTION_RATE: '1000/1s',
        // The stand-in does not pace channels unless a row asks (bench/fleet.ts does): neither do the processes.
        SLACK_POST_INTERVAL: '0s',
        LOG_LEVEL: 'info',
        ...redisTargetEnv(this.options.redisTarget),
        ...(tuning ? { FLEET_TUNING: JSON.stringify(tuning) } : {}),
        ...(this.options.signIn
          ? {
              SLACK_CLIENT_ID: this.slack.clientId,
              SLACK_CLIENT_SECRET: this.slack.clientSecret,
              SLACK_WEB_URL: this.slack.origin,
            }
          : {}),
        ...this.options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const proc: RoleProcess = {
      role,
      name,
      child,
      port: 0,
      expected: false,
      exited: new Promise<void>((resolve) =>
        child.once('exit', (code) => {
          proc.exitCode = code;
          resolve();
        }),
      ),
      output: () => out,
      unhandled: 0,
      clusterRefusals: 0,
    };
    const take = (chunk: Buffer) => {
      const text = chunk.toString();
      for (const line of text.split('\n')) {
        if (/"level":60|unhandled/i.test(line)) proc.unhandled += 1;
        if (/\b(MOVED|CROSSSLOT)\b/.test(line)) proc.clusterRefusals += 1;
      }
      out = (out + text).slice(-65_536);
    };
    child.stdout?.on('data', take);
    child.stderr?.on('data', take);
    this.processes.push(proc);
    proc.port = await new Promise<number>((resolve, reject) => {
      const started = Date.now();
      const timer = setInterval(() => {
        const match = /serving (?:on port|\/healthz and \/metrics on port) (\d+)/.exec(out);
        if (match) {
          clearInterval(timer);
          resolve(Number(match[1]));
        } else if (proc.exitCode !== undefined || Date.now() - started > ROLE_START_MS) {
          clearInterval(timer);
          reject(new Error(`fleet: ${name} did not start:\n${out.slice(-4_000)}`));
        }
      }, 25);
    });
    return proc;
  }

  /** Kills a process the way a machine dies (SIGKILL: no cleanup) and waits until it is gone. */
  async kill(proc: RoleProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    proc.expected = true;
    if (proc.exitCode === undefined) proc.child.kill(signal);
    await within(`${proc.name} to exit after ${signal}`, EXIT_MS, proc.exited);
  }

  /** Processes that exited when nobody stopped them, and error lines about unhandled failures. */
  crashes(): { exits: number; unhandled: number; details: string[] } {
    const exited = this.processes.filter((p) => !p.expected && p.exitCode !== undefined);
    const unhandled = this.processes.reduce((sum, p) => sum + p.unhandled, 0);
    const details = [
      ...exited.map((p) => `${p.name} exited ${p.exitCode}:\n${p.output().slice(-2_000)}`),
      ...this.processes
        .filter((p) => p.unhandled > 0)
        .map((p) => `${p.name}: ${p.unhandled} unhandled:\n${unhandledLines(p.output())}`),
    ];
    return { exits: exited.length, unhandled, details };
  }

  /** A counter from one process's /metrics, summed over the series whose labels match. */
  async metric(proc: RoleProcess, name: string, labels: Record<string, string> = {}): Promise<number> {
    const res = await request(`http://127.0.0.1:${proc.port}/metrics`, {
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
    });
    const text = await res.body.text();
    let sum = 0;
    for (const line of text.split('\n')) {
      if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
      if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`)))
        sum += Number(line.split(' ').at(-1));
    }
    return sum;
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.processes.map(async (p) => {
        p.expected = true;
        if (p.exitCode !== undefined) return;
        p.child.kill('SIGTERM');
        const forced = setTimeout(() => p.child.kill('SIGKILL'), 15_000);
        try {
          await within(`${p.name} to exit after SIGTERM (SIGKILL at 15 s)`, EXIT_MS, p.exited);
        } finally {
          clearTimeout(forced);
        }
      }),
    );
    await within('the Slack stand-in and the sandbox to close', CLEANUP_MS, () =>
      Promise.all([this.slack.close(), this.sandbox.close()]),
    );
    const redis = createRedis(this.redisTarget);
    redis.on('error', () => {});
    await within(
      `the keys under ${this.prefix} to be deleted`,
      CLEANUP_MS,
      deleteByPrefix(redis, this.prefix),
    ).catch(() => {});
    redis.disconnect();
  }
}

function unhandledLines(output: string): string {
  return output
    .split('\n')
    .filter((line) => /"level":60|unhandled/i.test(line))
    .slice(-5)
    .join('\n');
}
