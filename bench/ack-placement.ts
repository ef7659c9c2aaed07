/**
 * Where the ack benchmark's processes run. On a machine of few cores the fakes (the Slack stand-in and the
 * sandbox gateway, in the `world` child) and the load generator share the CPUs with the target measured. In the
 * bot's rounds the world serves every answer the bot sends (a response_url post, a gateway read, a channel
 * post), in the bare app's rounds nothing; so without placement the bot's acks also wait for the fakes' CPU,
 * which in production is Slack's and the gateway's machines, not ours. With `taskset` (Linux) the targets (bot,
 * bare app, answering app) get the last CPU to themselves, one at a time as the rounds alternate, and this
 * process and the world the others. Redis is the machine's own and is left where the kernel puts it.
 * `--no-pin` runs everything unpinned, as before; without taskset or with one CPU nothing is pinned and the
 * summary says so.
 */
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

export interface Placement {
  /** The CPU list (taskset's form) the targets run on; undefined: not pinned. */
  targets?: string;
  /** Restores this process's CPUs (run-all goes on to other benches after this one). */
  restore(): void;
  /** One line for the summary: where each process ran. */
  said: string;
}

/** This process's CPU list as taskset prints it ("0,1", "0-3"), or undefined when taskset cannot tell. */
function currentCpus(): string | undefined {
  try {
    const out = execFileSync('taskset', ['-c', '-p', String(process.pid)], { encoding: 'utf8' });
    return /:\s*(\S+)\s*$/.exec(out)?.[1];
  } catch {
    return undefined;
  }
}

function pinSelf(cpus: string): void {
  // -a: every thread of this process (V8's and libuv's, started before this call); later ones inherit.
  execFileSync('taskset', ['-a', '-c', '-p', cpus, String(process.pid)], { stdio: 'ignore' });
}

/** Pins this process (and so the children it forks next) away from the last CPU, which the targets get. */
export function placeProcesses(pin: boolean): Placement {
  const unpinned = (why: string): Placement => ({
    restore: () => {},
    said: `placement: not pinned (${why})`,
  });
  if (!pin) return unpinned('--no-pin');
  if (process.platform !== 'linux') return unpinned('taskset is Linux only');
  const cpus = availableParallelism();
  if (cpus < 2) return unpinned('one CPU');
  const original = currentCpus();
  if (!original) return unpinned('no taskset');
  const last = cpus - 1;
  const rest = last === 1 ? '0' : `0-${last - 1}`;
  pinSelf(rest);
  return {
    targets: String(last),
    restore: () => pinSelf(original),
    said:
      `placement: the measured target (bot, bare app or answering app) on CPU ${last}; the load generator and ` +
      `the fakes (Slack stand-in, sandbox gateway) on CPU ${rest}; Redis unpinned (--no-pin: all unpinned)`,
  };
}

/** How to start a child on `cpus` (fork's execPath and the arguments before node's own), or nothing. */
export function pinnedLaunch(cpus: string | undefined): { execPath: string; prefix: string[] } | undefined {
  return cpus ? { execPath: 'taskset', prefix: ['-c', cpus, process.execPath] } : undefined;
}
