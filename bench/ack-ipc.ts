/**
 * The ack benchmark's processes talk over Node's IPC channel: the parent calls an operation by name and
 * awaits its value; a child serves a table of operations. Kept apart from the roles so both sides read short.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { pinnedLaunch } from './ack-placement.js';

type Request = { id: number; op: string; args?: unknown };
type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string };

export type Operations = Record<string, (args: never) => Promise<unknown>>;

/** What a child spent since the last `usage` call: CPU, and how late its event loop ran timers. */
export interface Usage {
  cpuMs: number;
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
}

export interface RoleChild {
  readonly pid: number | undefined;
  call<T>(op: string, args?: unknown): Promise<T>;
  /** Asks the child to stop (its `stop` operation), then waits for it to exit; kills it after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Forks `file` with `role` as its argument and `extraExecArgv`: a compiled `.js` file (ack-build.ts) by plain
 * node, a `.ts` one with this process's loader flags (tsx); `cpus`: started under `taskset -c` on those CPUs
 * (ack-placement.ts), else where this process runs.
 */
export function forkRole(file: string, role: string, extraExecArgv: string[] = [], cpus?: string): RoleChild {
  const loader = process.execArgv.some((arg) => arg.includes('tsx')) ? [] : ['--import', 'tsx'];
  const viaTsx = file.endsWith('.ts') ? [...process.execArgv, ...loader] : [];
  const pinned = pinnedLaunch(cpus);
  const child: ChildProcess = fork(file, [role], {
    ...(pinned ? { execPath: pinned.execPath } : {}),
    execArgv: [...(pinned?.prefix ?? []), ...viaTsx, ...extraExecArgv],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let nextId = 0;
  child.on('message', (message: Reply) => {
    const waiter = pending.get(message.id);
    if (!waiter) return;
    pending.delete(message.id);
    if (message.ok) waiter.resolve(message.value);
    else waiter.reject(new Error(`${role}: ${message.error}`));
  });
  child.on('exit', (code, signal) => {
    for (const waiter of pending.values()) waiter.reject(new Error(`${role} exited (${code ?? signal})`));
    pending.clear();
  });
  return {
    pid: child.pid,
    call<T>(op: string, args?: unknown): Promise<T> {
      if (!child.connected) return Promise.reject(new Error(`${role} is not running`));
      const id = nextId++;
      return new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
        child.send({ id, op, args } satisfies Request);
      });
    },
    async stop(graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      if (child.connected) {
        await this.call('stop').catch(() => {});
        child.disconnect();
      }
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The child side: answers each request with its operation's value; exits when the parent goes away. */
export function serveRole(roleOperations: Operations): void {
  const loop = monitorEventLoopDelay();
  loop.enable();
  let last = process.cpuUsage();
  const operations: Operations = {
    ...roleOperations,
    async usage(): Promise<Usage> {
      const now = process.cpuUsage(last);
      last = process.cpuUsage();
      const usage = {
        cpuMs: (now.user + now.system) / 1_000,
        loopDelayP99Ms: loop.percentile(99) / 1e6,
        loopDelayMaxMs: loop.max / 1e6,
      };
      loop.reset();
      return usage;
    },
  };
  process.on('message', (message: Request) => {
    const operation = operations[message.op];
    const run = operation
      ? operation(message.args as never)
      : Promise.reject(new Error(`no operation ${message.op}`));
    run.then(
      (value) => process.send?.({ id: message.id, ok: true, value } satisfies Reply),
      (error: unknown) =>
        process.send?.({
          id: message.id,
          ok: false,
          error: error instanceof Error ? (error.stack ?? error.message) : String(error),
        } satisfies Reply),
    );
  });
  // The parent disconnects after `stop` (or dies): whatever is left open must not keep us alive.
  process.on('disconnect', () => setTimeout(() => process.exit(0), 200).unref());
}
