import { type Sent, send } from '../fleet/audit.js';
import { FLEET_MEMBER, type Fleet } from '../fleet/fleet.js';
import { FLEET_CLIENT } from '../fleet/mixed.js';
import type { PrivateRedis } from '../fleet/private-redis.js';
import { mint } from './mcp.js';
import { CHANNEL, FAULT_TUNING, type FaultRow, runRow } from './row.js';

/**
 * An assistant flood while people use Slack, on one web process: five tokens of one member send batches of
 * 100 `tools/list`, 64 concurrent `tools/list` and 60 filtered `list_rankings` while `commands` Slack commands
 * arrive, a quarter of them gateway reads. The goals: no Slack ack over 3 s, and no Slack read slower than 1.5× the
 * same read's time without the flood (the median of ten sent one by one before it). Assistant calls answered
 * 429 or 503 are counted, not a goal.
 */

const LATENCY_MS = 300;
const ACK_LIMIT_MS = 3_000;
const SLOWER = 1.5;
/** A read of the gateway whose answer goes to the person through the response URL (no rows match), so its
 * answer can be told from the others'. */
const read = (i: number) => `get seo_reports status=none${i} limit=3`;
const BASELINE_READS = 10;

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

/** One JSON-RPC POST; its HTTP status (0: no answer). */
async function rpc(url: string, token: string, body: unknown): Promise<number> {
  try {
    const r = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify(body),
    });
    await r.arrayBuffer();
    return r.status;
  } catch {
    return 0;
  }
}

/** The flood: every request at once, spread over the tokens; the statuses it was answered with. */
function flood(url: string, tokens: string[]): Promise<number[]> {
  const list = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list' });
  const batch = Array.from({ length: 100 }, (_, i) => list(i));
  const rankings = (id: number) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      name: 'list_rankings',
      arguments: { client_id: FLEET_CLIENT, keyword: `no keyword ${id}`, from: '2020-01-01' },
    },
  });
  const token = (i: number) => tokens[i % tokens.length] as string;
  return Promise.all([
    ...tokens.map((t) => rpc(url, t, batch)),
    ...Array.from({ length: 64 }, (_, i) => rpc(url, token(i), list(i))),
    ...Array.from({ length: 60 }, (_, i) => rpc(url, token(i), rankings(i))),
  ]);
}

/**
 * Commands that answer in the web process, so what is measured is the web process and not the worker's queue
 * (the `mcp` row mixes actions in): the rest answer from Redis and Slack alone.
 */
const OTHERS = ['help', 'status', 'jobs'];

/** Slack commands, eight at a time: every fourth a read (timed), the rest `help`, `status` and `jobs`. */
async function slackLoad(fleet: Fleet, count: number): Promise<{ all: Timed[]; reads: Timed[] }> {
  const all: Timed[] = [];
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const i = next++;
      const text = i % 4 === 0 ? read(i) : (OTHERS[i % OTHERS.length] as string);
      all.push(await timedSend(fleet, text, `af${i}`));
    }
  };
  await Promise.all(Array.from({ length: 8 }, lane));
  return { all, reads: all.filter((t) => t.read) };
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
      // A generous rate, so the lane and the read caps are what hold the flood, not MCP_RATE.
      env: { MCP_RATE: '1000000/60s' },
    },
    async (fleet) => {
      fleet.slack.simulate.joinChannel(CHANNEL, FLEET_MEMBER);
      const tokens: string[] = [];
      for (let i = 0; i < 5; i++) tokens.push(await mint(fleet));
      const url = `http://127.0.0.1:${fleet.web[0]?.port}/mcp`;
      const baseline: Timed[] = [];
      for (let i = 0; i < BASELINE_READS; i++) baseline.push(await timedSend(fleet, read(i), `afb${i}`));
      await fleet.slack.waitFor(() => baseline.every((t) => answerMs(fleet, t) !== undefined), {
        what: 'the baseline reads',
        timeoutMs: 30_000,
      });
      const unloaded = median(baseline.map((t) => answerMs(fleet, t) ?? 0));
      const [statuses, load] = await Promise.all([flood(url, tokens), slackLoad(fleet, commands)]);
      await fleet.slack.waitFor(() => load.reads.every((t) => answerMs(fleet, t) !== undefined), {
        what: 'the reads under the flood',
        timeoutMs: 60_000,
      });
      const times = load.reads.map((t) => answerMs(fleet, t) ?? Number.POSITIVE_INFINITY);
      slowAcks = load.all.filter((t) => t.sent.failed || t.sent.ackMs > ACK_LIMIT_MS).length;
      slowReads = times.filter((ms) => ms > SLOWER * unloaded).length;
      refused = statuses.filter((s) => s === 429 || s === 503).length;
      const batches = statuses.slice(0, tokens.length).filter((s) => s === 400).length;
      note = `read ${unloaded} ms unloaded, p50 ${median(times)} ms and slowest ${Math.max(...times)} ms under the flood; slowest ack ${Math.max(...load.all.map((t) => t.sent.ackMs))} ms; ${batches}/${tokens.length} batches refused (400); statuses ${summary(statuses)}`;
      return {
        sent: [...baseline, ...load.all].map((t) => t.sent),
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
