import { readFileSync } from 'node:fs';
import { BUSY_TEXT } from '../../src/commands/gateway-command.js';
import type { FakeMessage } from '../../src/local/fake-slack/index.js';
import { type Sent, toldAnything } from '../fleet/audit.js';
import type { Fleet, FleetOptions } from '../fleet/fleet.js';
import { ACTION_COMMANDS, sendAll } from '../fleet/mixed.js';
import type { PrivateRedis } from '../fleet/private-redis.js';
import { CHANNEL, type FaultRow, runRow } from './row.js';

/**
 * A hostile or stuck gateway while commands arrive: a third of its reads drip (headers, then a byte every 2 s),
 * no read's pages ever end, and every string of every row carries a channel ping, a disguised link and a
 * right-to-left override. The bot must answer every command within 60 s (the dripping reads end at their
 * deadline), post nothing that pings or links, not crash, and keep a worker's memory bounded while it scans
 * pages that never end (digests).
 */

/** The row's goals beyond the columns. */
const ANSWER_WITHIN_MS = 60_000;
const RSS_LIMIT_MB = 300;
/** The payload's link target (src/sandbox/hostile.ts): any working link to it came from gateway data. */
const HOSTILE_LINK = /evil\.example/i;

/** Half actions, the rest reads, full scans (a local sort, digests) and commands that need no gateway. */
function hostileCommand(i: number): { marker: string; text: string; action?: string } {
  const marker = `hg${String(i).padStart(5, '0')}z`;
  const make = ACTION_COMMANDS[i % ACTION_COMMANDS.length];
  if (i % 10 < 5 && make) return { marker, ...make(marker) };
  const others = [
    'keywords limit=3',
    'reviews order=rating',
    'help',
    'jobs',
    i % 20 < 10 ? 'digest now rankings' : 'digest now reviews',
  ];
  return { marker, text: others[i % 5] ?? 'help' };
}

/** Resident memory of a process in MB, from /proc (Linux); undefined once it is gone. */
function rssMb(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Math.round(Number(kb) / 1024) : undefined;
  } catch {
    return undefined;
  }
}

export function hostileGateway(redis: PrivateRedis, commands: number): Promise<FaultRow> {
  const options: FleetOptions = {
    name: 'hostile',
    redisUrl: redis.url,
    web: 1,
    workers: 1,
    tuning: { reconcileGraceMs: 100, backoffMs: 10 },
    // A short read deadline keeps the row fast; production's 20 s holds the same way, only slower.
    env: { GATEWAY_ACTION_TIMEOUT: '1s', GATEWAY_READ_TIMEOUT: '3s', LOG_LEVEL: 'info' },
  };
  return runRow(
    'hostile or stuck gateway (drips, endless pages, mentions/links in every string)',
    `${commands} commands`,
    options,
    async (fleet) => {
      // After the binding (runRow binds first): the client's own name stays as it was bound.
      fleet.sandbox.setKnobs({ dripRate: 0.3, dripMs: 2_000, endlessRate: 1, hostileRate: 1 });
      let peak = 0;
      const sample = () => {
        for (const w of fleet.workers) peak = Math.max(peak, rssMb(w.child.pid) ?? 0);
      };
      const sampler = setInterval(sample, 200);
      sampler.unref();
      const sent = await sendAll(fleet, commands, hostileCommand, {
        channel: CHANNEL,
        inFlight: 8,
        between: () => new Promise((r) => setTimeout(r, 20)),
      });
      const unanswered = await waitAnswered(fleet, sent, ANSWER_WITHIN_MS);
      const columns = () => {
        sample();
        return { unanswered: unanswered.length, peakWorkerRssMb: peak };
      };
      const requests = fleet.sandbox.requests();
      const dripped = requests.filter((r) => r.fault === 'drip').length;
      const busy = fleet.slack.calls.filter(
        (c) => c.method === 'response_url' && c.args.text === BUSY_TEXT,
      ).length;
      return {
        sent,
        columns,
        note: () =>
          `gateway GETs ${requests.filter((r) => r.method === 'GET').length}, ${dripped} dripped; ${busy} commands told the bot is busy; peak worker RSS ${peak} MB`,
        details: unanswered.slice(0, 5).map((s) => `unanswered after 60 s: "${s.text}"`),
        missed: () => [
          ...(unanswered.length ? [`${unanswered.length} commands unanswered after 60 s`] : []),
          ...(peak >= RSS_LIMIT_MB ? [`a worker reached ${peak} MB (goal: under ${RSS_LIMIT_MB} MB)`] : []),
        ],
        after: async () => clearInterval(sampler),
      };
    },
    120_000,
    // The one escaping function strips bidirectional controls, so any that reaches Slack counts as unescaped.
    { forbiddenLink: HOSTILE_LINK, bidi: true },
  );
}

/**
 * The commands still without any answer (an ephemeral, a modal, their job's status message) once `withinMs`
 * has passed since the last was sent (sending all of them takes a second or two).
 */
async function waitAnswered(fleet: Fleet, sent: Sent[], withinMs: number): Promise<Sent[]> {
  const deadline = Date.now() + withinMs;
  let open = sent;
  while (open.length > 0 && Date.now() < deadline) {
    const statuses = new Map<string, FakeMessage>();
    for (const m of fleet.slack.messages(CHANNEL))
      for (const marker of m.text.match(/[a-z]{2}\d{5}z/g) ?? []) statuses.set(marker, m);
    open = open.filter((s) => !toldAnything(fleet.slack, s, statuses));
    if (open.length) await new Promise((r) => setTimeout(r, 250));
  }
  return open;
}
