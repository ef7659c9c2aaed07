/**
 * The assistant flood of bench/mcp.ts: a Slack ack's p99 and a Slack read's p50 with and without an assistant
 * flood on the same web process, in alternating rounds of one run (the sandbox answering in 300 ms). The flood:
 * five tokens of one person, each sending a batch of 100 `tools/list`, then 64 concurrent `tools/list` and 60
 * filtered `list_rankings`, again and again while the round's Slack commands run. Goals: the read's p50 within
 * 1.5× its time without the flood, and no ack near Slack's 3 s.
 */
import type { SlackDriver } from '../src/local/driver.js';
import type { FakeSlack } from '../src/local/fake-slack/index.js';
import { floodWave } from '../test/faults/flood-wave.js';

const LATENCY_MS = 300;
const ROUNDS = 3;
const IN_FLIGHT = 8;

export interface FloodTarget {
  mcpUrl: string;
  tokens: string[];
  clientId: string;
  driver: SlackDriver;
  slack: FakeSlack;
  user: string;
  channel: string;
  setLatency(ms: number): void;
}

interface Round {
  acks: number[];
  reads: number[];
  refused: number;
}

const pct = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))] ??
  Number.NaN;

/** One wave of the flood; the number of requests answered 429 or 503. */
async function wave(t: FloodTarget, serial: number): Promise<number> {
  const statuses = await floodWave(t.mcpUrl, t.tokens, t.clientId, serial);
  return statuses.filter((s) => s === 429 || s === 503).length;
}

/** Slack commands, IN_FLIGHT at a time: `help` for the acks, and reads timed to their answer in Slack. */
async function slackRound(t: FloodTarget, count: number, tag: string): Promise<Omit<Round, 'refused'>> {
  const acks: number[] = [];
  const reads: number[] = [];
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const i = next++;
      const started = performance.now();
      const sent = await t.driver.command(i % 2 ? 'help' : `get seo_reports status=none${tag}${i} limit=3`, {
        user: t.user,
        channel: t.channel,
      });
      acks.push(sent.elapsedMs);
      if (i % 2) continue;
      const id = sent.responseUrl.slice(sent.responseUrl.lastIndexOf('/') + 1);
      await t.slack.waitFor(
        () => t.slack.calls.some((c) => c.method === 'response_url' && c.responseUrl === id),
        {
          what: 'a read’s answer',
          timeoutMs: 30_000,
        },
      );
      reads.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  return { acks, reads };
}

async function floodedRound(t: FloodTarget, count: number, tag: string): Promise<Round> {
  let done = false;
  let refused = 0;
  const flood = (async () => {
    for (let serial = 0; !done; serial++) refused += await wave(t, serial);
  })();
  const round = await slackRound(t, count, tag).finally(() => {
    done = true;
  });
  await flood;
  return { ...round, refused };
}

/** Prints the figures; true when both goals hold. */
export async function floodFigures(t: FloodTarget, commands: number): Promise<boolean> {
  t.setLatency(LATENCY_MS);
  const quiet: Round[] = [];
  const flooded: Round[] = [];
  try {
    await slackRound(t, IN_FLIGHT * 2, 'warm');
    for (let r = 0; r < ROUNDS; r++) {
      quiet.push({ ...(await slackRound(t, commands, `q${r}`)), refused: 0 });
      flooded.push(await floodedRound(t, commands, `f${r}`));
    }
  } finally {
    t.setLatency(0);
  }
  const all = (rounds: Round[], key: 'acks' | 'reads') => rounds.flatMap((r) => r[key]);
  const ackQuiet = pct(all(quiet, 'acks'), 99);
  const ackFlood = pct(all(flooded, 'acks'), 99);
  const readQuiet = pct(all(quiet, 'reads'), 50);
  const readFlood = pct(all(flooded, 'reads'), 50);
  const readRatio = readFlood / readQuiet;
  const ok = readRatio <= 1.5 && ackFlood < 3_000;
  const f = (v: number) => `${v.toFixed(0)} ms`;
  console.log(
    `assistant flood (5 tokens of one person: batches, 64 tools/list, 60 filtered list_rankings, repeated; sandbox ${LATENCY_MS} ms), ${ROUNDS} rounds of ${commands} Slack commands each way, ${IN_FLIGHT} at a time:`,
  );
  console.log(
    `  Slack ack p99: ${f(ackQuiet)} without, ${f(ackFlood)} with the flood: ×${(ackFlood / ackQuiet).toFixed(2)} (goal < 3 s)`,
  );
  console.log(
    `  Slack read p50 (to its answer in Slack): ${f(readQuiet)} without, ${f(readFlood)} with: ×${readRatio.toFixed(2)} (goal ≤ ×1.5) ${ok ? 'ok' : 'MISSED'}`,
  );
  console.log(
    `  assistant requests answered 429/503: ${flooded.reduce((n, r) => n + r.refused, 0)} (the flood's client runs in this process too)`,
  );
  return ok;
}
