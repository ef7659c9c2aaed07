import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { type Sent, send } from '../fleet/audit.js';
import { FLEET_MEMBER, type Fleet } from '../fleet/fleet.js';
import { FLEET_CLIENT } from '../fleet/mixed.js';
import type { PrivateRedis } from '../fleet/private-redis.js';
import { mint } from './mcp.js';
import { CHANNEL, FAULT_TUNING, type FaultRow, runRow } from './row.js';

/**
 * An assistant flood while people use Slack, on one web process: five tokens of one member send batches of
 * 100 `tools/list`, 64 concurrent `tools/list` and 60 filtered `list_rankings` while `commands` Slack commands
 * arrive (ten a second), a quarter of them gateway reads; the flood starts again as soon as a wave is answered,
 * for as long as the commands arrive. The goals: no Slack ack over 3 s, and no Slack read slower than 1.5× the
 * reads' time without the flood (their median when the same commands arrived just before, with no assistant).
 * Assistant calls answered 429 or 503 are counted, not a goal.
 */

const LATENCY_MS = 300;
const ACK_LIMIT_MS = 3_000;
const SLOWER = 1.5;
/** A read of the gateway whose answer goes to the person through the response URL (no rows match), so its
 * answer can be told from the others'. */
const read = (i: number) => `get seo_reports status=none${i} limit=3`;

type Timed = { sent: Sent; startedAt: number; read?: boolean };

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/** When the read's answer reached Slack (its response_url post), from when its command was sent. */
function answerMs(fleet: Fleet, t: Timed): number | undefined {
  const id = t.sent.responseUrl.slice(t.sent.responseUrl.lastIndexOf('/') + 1);
  const call = fleet.slack.calls.find((c) => c.ok && c.method === 'response_url' && c.responseUrl === id);
  return call ? call.at - t.startedAt : undefined;
}

async function timedSend(fleet: Fleet, text: string, marker: string): Promise<Timed> {
  const startedAt = Date.now();
  const sent = await send(fleet, text, { marker, channel: CHANNEL, user: FLEET_MEMBER });
  return { sent, startedAt, read: text.startsWith('get ') };
}

/** Commands that answer in the web process from Redis and Slack alone, between the reads. */
const OTHERS = ['help', 'status', 'jobs'];
/** Commands arrive at this pace (ten a second), as people send them: they do not wait for each other. */
const ARRIVAL_MS = 100;

/** `count` Slack commands arriving every ARRIVAL_MS: every fourth a read (timed), the rest `help`, `status`, `jobs`. */
async function slackLoad(
  fleet: Fleet,
  count: number,
  tag: string,
): Promise<{ all: Timed[]; reads: Timed[] }> {
  const sends: Promise<Timed>[] = [];
  for (let i = 0; i < count; i++) {
    const text = i % 4 === 0 ? read(i) : (OTHERS[i % OTHERS.length] as string);
    sends.push(timedSend(fleet, text, `${tag}${i}`));
    await new Promise((r) => setTimeout(r, ARRIVAL_MS));
  }
  const all = await Promise.all(sends);
  await fleet.slack.waitFor(() => all.every((t) => !t.read || answerMs(fleet, t) !== undefined), {
    what: `the reads of ${tag}`,
    timeoutMs: 60_000,
  });
  return { all, reads: all.filter((t) => t.read) };
}

/**
 * Floods in waves from a process of its own (flood-client.ts) until `until` settles, so the flood's own client
 * does not weigh on this process, which times the acks and serves the stand-ins; every status it was answered.
 */
async function floodUntil(url: string, tokens: string[], until: Promise<unknown>): Promise<number[]> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(new URL('./flood-client.ts', import.meta.url))],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  child.stdin.end(JSON.stringify({ url, tokens, clientId: FLEET_CLIENT }));
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  const exited = once(child, 'exit');
  await until.finally(() => child.kill('SIGTERM'));
  await exited;
  return JSON.parse(out.trim().split('\n').at(-1) ?? '[]') as number[];
}

export function assistantFlood(redis: PrivateRedis, commands: number): Promise<FaultRow> {
  let slowAcks = 0;
  let slowReads = 0;
  let refused = 0;
  let note = '';
  return runRow(
    'assistant flood',
    `5 tokens of one member: 5 batches, 64 tools/list, 60 list_rankings + ${commands} commands`,
    {
      name: 'flood',
      redisUrl: redis.url,
      web: 1,
      workers: 1,
      tuning: FAULT_TUNING,
      knobs: { latencyMs: LATENCY_MS },
      // A generous rate, so the lane and the read caps are what hold the flood, not MCP_RATE; and five tokens
      // of one person minted at once, more than MCP_MINT_RATE's default lets a person mint in a minute.
      env: { MCP_RATE: '1000000/60s', MCP_MINT_RATE: '100/60s' },
    },
    async (fleet) => {
      fleet.slack.simulate.joinChannel(CHANNEL, FLEET_MEMBER);
      const tokens: string[] = [];
      for (let i = 0; i < 5; i++) tokens.push(await mint(fleet));
      const url = `http://127.0.0.1:${fleet.web[0]?.port}/mcp`;
      // The same arrivals twice: without the flood (each read's unloaded time), then with it.
      const quiet = await slackLoad(fleet, commands, 'afq');
      const unloaded = median(quiet.reads.map((t) => answerMs(fleet, t) ?? 0));
      const loading = slackLoad(fleet, commands, 'aff');
      const [statuses, load] = await Promise.all([floodUntil(url, tokens, loading), loading]);
      const times = load.reads.map((t) => answerMs(fleet, t) ?? Number.POSITIVE_INFINITY);
      slowAcks = load.all.filter((t) => t.sent.failed || t.sent.ackMs > ACK_LIMIT_MS).length;
      slowReads = times.filter((ms) => ms > SLOWER * unloaded).length;
      refused = statuses.filter((s) => s === 429 || s === 503).length;
      const waves = Math.round(statuses.length / (tokens.length + 124));
      const quietTimes = quiet.reads.map((t) => answerMs(fleet, t) ?? 0);
      const slowest = (load: { all: Timed[] }) => Math.max(...load.all.map((t) => t.sent.ackMs));
      note = `without the flood: read p50 ${unloaded} ms, slowest ${Math.max(...quietTimes)} ms (${quietTimes.filter((ms) => ms > SLOWER * unloaded).length} over 1.5× already), slowest ack ${slowest(quiet)} ms; with it: read p50 ${median(times)} ms, slowest ${Math.max(...times)} ms, slowest ack ${slowest(load)} ms; ${waves} flood waves, statuses ${summary(statuses)} (400: the batches)`;
      return {
        sent: [...quiet.all, ...load.all].map((t) => t.sent),
        note: () => note,
        columns: () => ({ slowAcks, slowReads, assistantRefused: refused }),
      };
    },
    60_000 + commands * 200,
  );
}

function summary(statuses: number[]): string {
  const counts = new Map<number, number>();
  for (const s of statuses) counts.set(s, (counts.get(s) ?? 0) + 1);
  return [...counts.entries()].map(([s, n]) => `${s}×${n}`).join(' ');
}
