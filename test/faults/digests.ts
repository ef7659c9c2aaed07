import { Queue } from 'bullmq';
import { DIGEST_JOB_NAME, DIGEST_QUEUE, type DigestJobData } from '../../src/digests/digest-queue.js';
import { DigestStore } from '../../src/digests/store.js';
import { createRedis } from '../../src/redis/connection.js';
import { blockKitViolations, unescapedMentions } from '../fleet/audit.js';
import { FLEET_ADMIN, FLEET_MEMBER, Fleet } from '../fleet/fleet.js';
import { bindChannel, FLEET_CLIENT } from '../fleet/mixed.js';
import type { PrivateRedis } from '../fleet/private-redis.js';
import { CHANNEL, type FaultRow } from './row.js';

/**
 * Doubled digest runs: two scheduler processes and two workers on a fast schedule while reviews arrive, and
 * for every period that has posted, one more job for the same period added by hand (what a second scheduler
 * or a redelivery makes). Each period must post once, and every review be reported once.
 */

const PERIOD_MS = 1_000;

type Meta = { event_type?: string; event_payload?: { run?: string } } | undefined;

export async function doubledDigests(redis: PrivateRedis, periods: number): Promise<FaultRow> {
  const began = Date.now();
  const fleet = await Fleet.start({
    name: 'digests',
    redisUrl: redis.url,
    web: 1,
    workers: 2,
    schedulers: 2,
  });
  const connection = createRedis(redis.url);
  const queue = new Queue<DigestJobData>(DIGEST_QUEUE, { connection, prefix: fleet.prefix });
  try {
    await bindChannel(fleet, CHANNEL);
    const store = new DigestStore(connection, fleet.prefix);
    await store.save({
      channel: CHANNEL,
      kind: 'reviews',
      schedule: { kind: 'every', ms: PERIOD_MS },
      tz: 'UTC',
      filters: {},
      createdBy: FLEET_ADMIN,
      createdAt: new Date().toISOString(),
    });
    const digests = () =>
      fleet.slack.messages(CHANNEL).filter((m) => (m.metadata as Meta)?.event_type === 'gateway_digest');
    const runOf = (m: { metadata?: unknown }) => String((m.metadata as Meta)?.event_payload?.run);
    await fleet.slack.waitFor(() => digests()[0], { what: 'the baseline digest', timeoutMs: 30_000 });
    const inserted: string[] = [];
    const feeder = setInterval(() => {
      const n = inserted.length + 1;
      inserted.push(`Reviewer ${n}q`);
      fleet.sandbox.insertRows(FLEET_CLIENT, 'reviews', [
        {
          id: `rev_fault_${n}`,
          author: `Reviewer ${n}q`,
          rating: 1,
          text: 'Never called back.',
          sentiment: 'negative',
          created_at: new Date().toISOString(),
        },
      ]);
    }, 300);
    const doubled = new Set<string>();
    try {
      await fleet.slack.waitFor(
        () => {
          // Every period that has posted gets a second job for the same period.
          for (const m of digests()) {
            const run = runOf(m);
            if (doubled.has(run) || !/^e\d+$/.test(run)) continue;
            doubled.add(run);
            void queue.add(
              DIGEST_JOB_NAME,
              { channel: CHANNEL, kind: 'reviews', trigger: 'schedule' },
              { jobId: `doubled-${run}`, prevMillis: Number(run.slice(1)) * PERIOD_MS },
            );
          }
          return digests().length >= periods + 1 || undefined;
        },
        { what: `${periods} digests after the baseline`, timeoutMs: periods * PERIOD_MS * 6 + 30_000 },
      );
    } finally {
      clearInterval(feeder);
    }
    // The last reviews get their period, then the schedule stops.
    await new Promise((r) => setTimeout(r, PERIOD_MS * 3));
    await store.remove(CHANNEL, 'reviews');
    await new Promise((r) => setTimeout(r, PERIOD_MS * 2));

    const posted = digests();
    const runs = posted.map(runOf);
    const doubledPeriods = runs.length - new Set(runs).size;
    const reported = new Map<string, number>();
    for (const m of posted.slice(1)) {
      const texts = [m, ...fleet.slack.thread(CHANNEL, m.ts)].map(
        (x) => `${x.text}\n${JSON.stringify(x.blocks ?? [])}`,
      );
      for (const name of new Set(texts.join('\n').match(/Reviewer \d+q/g))) {
        reported.set(name, (reported.get(name) ?? 0) + 1);
      }
    }
    const lostReviews = inserted.filter((name) => !reported.has(name)).length;
    const twiceReported = [...reported.values()].filter((n) => n > 1).length;
    const blockKit = blockKitViolations(fleet.slack);
    const unescaped = unescapedMentions(fleet.slack, [CHANNEL], [FLEET_ADMIN, FLEET_MEMBER]);
    const crashes = fleet.crashes();
    return {
      name: 'doubled digest runs',
      size: `${runs.length} periods, ${doubled.size} doubled jobs, 2 schedulers`,
      lost: lostReviews,
      duplicates: doubledPeriods + twiceReported,
      silent: '—',
      unescaped: unescaped.count,
      blockKit: blockKit.count,
      crashes: crashes.exits + crashes.unhandled,
      ms: Date.now() - began,
      note: `${inserted.length} reviews arrived, ${reported.size} reported; "lost" counts reviews never reported, "duplicates" periods posted twice and reviews reported twice`,
      details: [...unescaped.details, ...blockKit.details, ...crashes.details].slice(0, 12),
    };
  } finally {
    await queue.close();
    await connection.quit().catch(() => connection.disconnect());
    await fleet.stop();
  }
}
