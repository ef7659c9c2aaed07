/**
 * The ack benchmark's load generator: signed `/gateway` slash-command bodies, sent over an undici Pool with
 * a fixed number in flight (closed loop: a lane sends its next request when its last one was answered).
 */
import { Pool } from 'undici';
import { signSlackRequest } from '../src/local/signing.js';
import { epochMs } from './ack-watch.js';

export interface CommandTarget {
  text: string;
  user: string;
  channel: string;
  responseUrl: string;
  triggerId: string;
}

export interface Workspace {
  teamId: string;
  teamDomain: string;
  appId: string;
}

export interface SignedCommand {
  body: string;
  headers: Record<string, string>;
}

export interface LoadResult {
  /** Ack latency of each request, ms, in sending order. */
  latencies: Float64Array;
  /** epochMs() when each request was sent. */
  sentAt: Float64Array;
  errors: number;
  elapsedMs: number;
}

/** The form Slack posts for a slash command (the same fields src/local/driver.ts sends), signed now. */
export function signCommand(secret: string, ws: Workspace, target: CommandTarget): SignedCommand {
  const body = new URLSearchParams({
    token: 'local-verification-token',
    team_id: ws.teamId,
    team_domain: ws.teamDomain,
    channel_id: target.channel,
    channel_name: target.channel.toLowerCase(),
    user_id: target.user,
    user_name: target.user.toLowerCase(),
    command: '/gateway',
    text: target.text,
    api_app_id: ws.appId,
    is_enterprise_install: 'false',
    response_url: target.responseUrl,
    trigger_id: target.triggerId,
  }).toString();
  return {
    body,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...signSlackRequest(secret, body) },
  };
}

export function openPool(port: number, connections: number): Pool {
  return new Pool(`http://127.0.0.1:${port}`, {
    connections,
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
}

/** One signed command; its ack latency and whether it was acked with 200. */
async function sendOne(pool: Pool, command: SignedCommand): Promise<{ ms: number; ok: boolean }> {
  const started = performance.now();
  try {
    const res = await pool.request({
      method: 'POST',
      path: '/slack/events',
      headers: command.headers,
      body: command.body,
    });
    await res.body.dump();
    return { ms: performance.now() - started, ok: res.statusCode === 200 };
  } catch {
    return { ms: performance.now() - started, ok: false };
  }
}

/** Sends every command with exactly `inFlight` outstanding until the list runs out. */
export async function sendClosedLoop(
  pool: Pool,
  commands: SignedCommand[],
  inFlight: number,
): Promise<LoadResult> {
  const latencies = new Float64Array(commands.length);
  const sentAt = new Float64Array(commands.length);
  let next = 0;
  let errors = 0;
  const lane = async () => {
    while (next < commands.length) {
      const i = next++;
      sentAt[i] = epochMs();
      const sent = await sendOne(pool, commands[i]!);
      latencies[i] = sent.ms;
      if (!sent.ok) errors++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: Math.min(inFlight, commands.length) }, lane));
  return { latencies, sentAt, errors, elapsedMs: performance.now() - started };
}

/**
 * Sends command i at `i * gapMs` after the start whatever the others are doing (an open loop), so the time to
 * an answer is not inflated by a queue the benchmark itself built.
 */
export async function sendPaced(pool: Pool, commands: SignedCommand[], gapMs: number): Promise<LoadResult> {
  const latencies = new Float64Array(commands.length);
  const sentAt = new Float64Array(commands.length);
  let errors = 0;
  const started = performance.now();
  await Promise.all(
    commands.map(async (command, i) => {
      const wait = started + i * gapMs - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      sentAt[i] = epochMs();
      const sent = await sendOne(pool, command);
      latencies[i] = sent.ms;
      if (!sent.ok) errors++;
    }),
  );
  return { latencies, sentAt, errors, elapsedMs: performance.now() - started };
}

/** Nearest-rank percentile (p in 0..100) of unsorted values. */
export function percentile(values: ArrayLike<number>, p: number): number {
  const sorted = Float64Array.from(values).sort();
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}
