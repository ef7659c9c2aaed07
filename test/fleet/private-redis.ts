import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, redisAnswers } from '../../src/local/redis-local.js';
import { within } from './deadline.js';

/**
 * A private redis-server with AOF on (appendfsync always, as a restart must lose nothing that was
 * acknowledged), on its own port and directory, that the fault suite can stop and start again on the same
 * port and data: "Redis restarted mid-run".
 */
export class PrivateRedis {
  private child: ChildProcess | undefined;

  private constructor(
    readonly port: number,
    private readonly dir: string,
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start(): Promise<PrivateRedis> {
    const redis = new PrivateRedis(
      await freePort(),
      mkdtempSync(join(tmpdir(), 'gateway-bot-faults-redis-')),
    );
    await redis.up();
    return redis;
  }

  private async up(): Promise<void> {
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir, '--save', ''];
    args.push('--appendonly', 'yes', '--appendfsync', 'always', '--maxmemory-policy', 'noeviction');
    const child = spawn('redis-server', args, { stdio: 'ignore' });
    this.child = child;
    await new Promise<void>((resolve, reject) => {
      child.once('error', () =>
        reject(
          new Error('redis-server is not installed (apt-get install redis-server); the fault suite needs it'),
        ),
      );
      child.once('spawn', () => resolve());
    });
    for (let i = 0; i < 100; i++) {
      if (await redisAnswers(this.url, 200)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`redis-server on port ${this.port} did not answer`);
  }

  /** Stops it (SIGTERM: Redis flushes the AOF and exits) and resolves once the process is gone. */
  async down(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    // Redis writes its AOF and exits at once; one that does not is killed, and the row says so.
    const forced = setTimeout(() => child.kill('SIGKILL'), 10_000);
    try {
      await within(`redis-server on port ${this.port} to exit after SIGTERM (SIGKILL at 10 s)`, 15_000, gone);
    } finally {
      clearTimeout(forced);
    }
  }

  /** Down, a pause with nothing listening, and up again on the same port with the same AOF. */
  async restart(pauseMs: number): Promise<void> {
    await this.down();
    await new Promise((r) => setTimeout(r, pauseMs));
    await this.up();
  }

  async stop(): Promise<void> {
    await this.down();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
