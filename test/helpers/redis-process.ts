import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * redis-server processes that a test starts and stops by pid: no persistence, loopback only, each in its own
 * directory. The cluster and Sentinel helpers build on it.
 */

const run = promisify(execFile);

/** `redis-cli` with its arguments; resolves to its output. */
export async function redisCli(args: string[]): Promise<string> {
  const { stdout } = await run('redis-cli', args, { timeout: 30_000 });
  return stdout;
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

const taken = new Set<number>();

/** The first port the kernel hands out for outgoing connections (32768 unless the machine says otherwise). */
function ephemeralStart(): number {
  try {
    const first = Number(
      readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0],
    );
    return first > 20_000 ? first : 32_768;
  } catch {
    return 32_768;
  }
}

/**
 * `count` free ports whose `+offset` ports are free too (a cluster node's bus port is its port + 10000), all
 * below the kernel's range for outgoing connections: a port in that range can be taken by some test's client
 * between this check and redis-server's bind (one CI run lost a Sentinel that way). Random within the range,
 * so parallel test files rarely meet; never the same twice here.
 */
export async function freePorts(count: number, offset = 0): Promise<number[]> {
  const low = 10_000;
  const span = ephemeralStart() - offset - low;
  const ports: number[] = [];
  for (let tries = 0; ports.length < count && tries < 1_000; tries++) {
    const port = low + Math.floor(Math.random() * span);
    if (taken.has(port) || taken.has(port + offset)) continue;
    if (!(await portFree(port)) || (offset && !(await portFree(port + offset)))) continue;
    taken.add(port);
    if (offset) taken.add(port + offset);
    ports.push(port);
  }
  if (ports.length < count) throw new Error(`could not find ${count} free ports`);
  return ports;
}

export class RedisProcess {
  private child: ChildProcess | undefined;

  constructor(
    readonly port: number,
    readonly dir: string,
    private readonly args: string[],
  ) {}

  /** A new directory and the arguments every test Redis shares, then `extra`. */
  static make(port: number, extra: string[], name = 'node'): RedisProcess {
    const dir = mkdtempSync(join(tmpdir(), `gateway-bot-${name}-`));
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir];
    args.push('--save', '', '--appendonly', 'no', '--protected-mode', 'no', ...extra);
    return new RedisProcess(port, dir, args);
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Starts it (a config file first when `configFile` is given, as Sentinel needs) and waits for PING. */
  async start(configFile?: string): Promise<void> {
    const child = spawn('redis-server', configFile ? [configFile, ...this.args] : this.args, {
      stdio: 'ignore',
    });
    this.child = child;
    await new Promise<void>((resolve, reject) => {
      child.once('error', () =>
        reject(new Error('redis-server is not installed (apt-get install redis-server)')),
      );
      child.once('spawn', () => resolve());
    });
    for (let i = 0; i < 200; i++) {
      const pong = await redisCli(['-p', String(this.port), 'ping']).catch(() => '');
      if (pong.trim() === 'PONG') return;
      if (!this.running)
        throw new Error(
          `redis-server on port ${this.port} exited before it answered (code ${child.exitCode}, signal ${child.signalCode}): its port taken?`,
        );
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`redis-server on port ${this.port} did not answer`);
  }

  /** Stops it by its pid (SIGKILL: a machine dying) and resolves once it is gone. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    await gone;
  }

  /** SIGSTOP (`true`) or SIGCONT (`false`): a node that stops reading its sockets while its links stay up. */
  freeze(frozen: boolean): void {
    if (this.running) this.child?.kill(frozen ? 'SIGSTOP' : 'SIGCONT');
  }

  async stop(): Promise<void> {
    await this.kill('SIGTERM');
    rmSync(this.dir, { recursive: true, force: true });
  }
}
