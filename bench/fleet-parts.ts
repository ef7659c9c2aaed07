/**
 * bench/fleet.ts's parts: the compiled processes (the bot's roles from dist/main.js, the sandbox from
 * dist/sandbox/cli.js), the agency's clients and subscriptions, and the figures read from the stand-in, the
 * sandbox and /proc.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FakeCall } from '../src/local/fake-slack/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));

export interface Proc {
  name: string;
  child: ChildProcess;
  peakRssMb: number;
  output(): string;
}

/** Starts `node dist/<entry>` with `env` (nothing inherited but PATH), sampling its RSS every 250 ms. */
export function startProc(name: string, entry: string, env: Record<string, string>): Proc {
  const child = spawn(process.execPath, [`${root}dist/${entry}`], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (chunk: Buffer) => {
    out = (out + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const proc: Proc = { name, child, peakRssMb: 0, output: () => out };
  const timer = setInterval(() => {
    const rss = rssMb(child.pid);
    if (rss !== undefined) proc.peakRssMb = Math.max(proc.peakRssMb, rss);
  }, 250);
  child.on('exit', () => clearInterval(timer));
  return proc;
}

function rssMb(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
    return kb ? Number(kb) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  ms: number,
) {
  const until = Date.now() + ms;
  for (;;) {
    const value = await Promise.resolve(probe()).catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`bench/fleet: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

export async function stopProc(proc: Proc): Promise<void> {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) return;
  const exited = new Promise((resolve) => proc.child.once('exit', resolve));
  proc.child.kill('SIGTERM');
  const timer = setTimeout(() => proc.child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/** The agency: 490 small clients (1–5k keyword rows over 5 days, 50–200 reviews) and 10 of 120,000 rows. */
export function fleetClients(count: number, large = Math.round(count / 50)): string[] {
  return Array.from({ length: count }, (_, n) =>
    n < large ? `synth-5000x24-${n}` : `synth-${200 + ((n * 37) % 801)}x5-${n}`,
  );
}

export interface DigestPost {
  channel: string;
  kind: string;
  at: number;
}

/** The digests the stand-in received (top-level messages with the digest's metadata). */
export function digestPosts(calls: readonly FakeCall[], channels: ReadonlySet<string>): DigestPost[] {
  const out: DigestPost[] = [];
  for (const c of calls) {
    if (c.method !== 'chat.postMessage' || !c.ok || c.args.thread_ts) continue;
    const channel = String(c.args.channel);
    const meta = c.args.metadata as { event_type?: string; event_payload?: { kind?: string } } | undefined;
    if (!channels.has(channel) || meta?.event_type !== 'gateway_digest') continue;
    out.push({ channel, kind: String(meta.event_payload?.kind), at: c.at });
  }
  return out;
}

/** The most chat.postMessage a channel took in any one second, and the 429s the stand-in answered. */
export function slackPace(calls: readonly FakeCall[], channels: ReadonlySet<string>) {
  const byChannel = new Map<string, number[]>();
  let refused = 0;
  for (const c of calls) {
    if (c.method !== 'chat.postMessage' || !channels.has(String(c.args.channel))) continue;
    if (c.error === 'ratelimited') refused++;
    if (!c.ok) continue;
    const list = byChannel.get(String(c.args.channel)) ?? [];
    list.push(c.at);
    byChannel.set(String(c.args.channel), list);
  }
  let maxPerSecond = 0;
  for (const times of byChannel.values()) {
    times.sort((a, b) => a - b);
    let start = 0;
    for (let i = 0; i < times.length; i++) {
      while ((times[i] as number) - (times[start] as number) >= 1_000) start++;
      maxPerSecond = Math.max(maxPerSecond, i - start + 1);
    }
  }
  return { maxPerSecond, refused };
}
