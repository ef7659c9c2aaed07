import { request } from 'undici';
import { DigestStore } from '../../src/digests/store.js';
import { createRedis, type RedisTarget } from '../../src/redis/connection.js';
import { auditJobs, blockKitViolations, type JobAudit, unescapedMentions, waitSettled } from './audit.js';
import { within } from './deadline.js';
import { FLEET_ADMIN, FLEET_MEMBER, Fleet } from './fleet.js';
import { bindChannel, FLEET_CLIENT, mixedCommand, sendAll } from './mixed.js';

/**
 * 2 web, 3 worker and 1 scheduler processes (src/main.ts each) on one Redis; `commands` mixed commands
 * through the Slack stand-in, signed, to the web processes in turn, while a reviews digest runs every second.
 * Used by the e2e test (a small size) and by `npm run faults -- --full` (1,000).
 */

export interface MultiProcessResult {
  sizes: { web: number; workers: number; schedulers: number; commands: number; actions: number };
  audit: JobAudit;
  /** Jobs each worker process finished (its own /metrics). */
  perWorker: number[];
  /** POSTs the gateway received per action marker, most. */
  maxPostsPerJob: number;
  schedulerHealthy: boolean;
  /** Digests the schedule posted while the commands ran (the first is the baseline). */
  digestRuns: number;
  /** Scheduled periods that posted more than once. */
  doubledSchedulerRuns: number;
  blockKit: number;
  unescaped: number;
  unescapedDetails: string[];
  crashes: number;
  crashDetails: string[];
  /** Log lines with MOVED or CROSSSLOT, over every process. */
  clusterRefusals: number;
  ms: number;
}

const DIGEST_PERIOD_MS = 1_000;

/** The run (period) of every scheduled digest posted in the channel. */
function digestRunsOf(fleet: Fleet, channel: string): string[] {
  return fleet.slack
    .messages(channel)
    .map((m) => m.metadata as { event_type?: string; event_payload?: { run?: string } } | undefined)
    .filter((meta) => meta?.event_type === 'gateway_digest')
    .map((meta) => String(meta?.event_payload?.run));
}

export async function runMultiProcess(
  redisUrl: string,
  commands: number,
  onCluster?: { target: RedisTarget; prefix: string },
): Promise<MultiProcessResult> {
  const started = Date.now();
  const fleet = await Fleet.start({
    name: 'multi',
    redisUrl,
    ...(onCluster ? { redisTarget: onCluster.target, prefix: onCluster.prefix } : {}),
    web: 2,
    workers: 3,
    schedulers: 1,
  });
  try {
    const channel = 'CFLEET';
    await bindChannel(fleet, channel);
    // A reviews digest every second for the channel, while reviews keep arriving: the scheduler process
    // upserts its job scheduler, the worker processes run the periods, each period claims its run once.
    const redis = createRedis(fleet.redisTarget);
    const digests = new DigestStore(redis, fleet.prefix);
    await digests.save({
      channel,
      kind: 'reviews',
      schedule: { kind: 'every', ms: DIGEST_PERIOD_MS },
      tz: 'UTC',
      filters: {},
      createdBy: FLEET_ADMIN,
      createdAt: new Date().toISOString(),
    });
    let review = 0;
    const feeder = setInterval(() => {
      review += 1;
      fleet.sandbox.insertRows(FLEET_CLIENT, 'reviews', [
        {
          id: `rev_fleet_${review}`,
          author: `Fleet reviewer ${review}`,
          rating: 2,
          text: 'Waited an hour.',
          sentiment: 'negative',
          created_at: new Date().toISOString(),
        },
      ]);
    }, 400);
    let sent: Awaited<ReturnType<typeof sendAll>>;
    try {
      sent = await within(
        `${commands} mixed commands to be acked`,
        60_000 + commands * 200,
        sendAll(fleet, commands, (i) => mixedCommand(i), { channel, inFlight: 8 }),
      );
      const settleMs = 60_000 + commands * 100;
      await within('the jobs to settle', settleMs + 30_000, waitSettled(fleet, sent, settleMs));
      // At least a baseline and one digest after it, however fast the commands went.
      await fleet.slack
        .waitFor(() => digestRunsOf(fleet, channel).length >= 2 || undefined, {
          what: 'two scheduled digests',
          timeoutMs: 30_000,
        })
        .catch(() => {});
    } finally {
      clearInterval(feeder);
      await digests.remove(channel, 'reviews');
      await redis.quit();
    }
    const runs = digestRunsOf(fleet, channel);
    const audit = await within('the audit of the jobs', 120_000, auditJobs(fleet, sent, FLEET_CLIENT));
    const perWorker = await Promise.all(
      fleet.workers.map((w) =>
        fleet.metric(w, 'gateway_bot_job_duration_seconds_count', { queue: 'actions' }),
      ),
    );
    const posts = new Map<string, number>();
    for (const r of fleet.sandbox.requests()) {
      if (r.method !== 'POST') continue;
      for (const marker of new Set(JSON.stringify(r.fields ?? {}).match(/[a-z]{2}\d{5}z/g)))
        posts.set(marker, (posts.get(marker) ?? 0) + 1);
    }
    const scheduler = fleet.live('scheduler')[0];
    let schedulerHealthy = false;
    if (scheduler) {
      const health = await request(`http://127.0.0.1:${scheduler.port}/healthz`, {
        headersTimeout: 10_000,
        bodyTimeout: 10_000,
      });
      schedulerHealthy = health.statusCode === 200;
      await health.body.dump();
    }
    const crashes = fleet.crashes();
    const unescaped = unescapedMentions(fleet.slack, [channel], [FLEET_ADMIN, FLEET_MEMBER]);
    return {
      sizes: {
        web: 2,
        workers: 3,
        schedulers: 1,
        commands,
        actions: sent.filter((s) => s.action).length,
      },
      audit,
      perWorker,
      maxPostsPerJob: Math.max(0, ...posts.values()),
      schedulerHealthy,
      digestRuns: runs.length,
      doubledSchedulerRuns: runs.length - new Set(runs).size,
      blockKit: blockKitViolations(fleet.slack).count,
      unescaped: unescaped.count,
      unescapedDetails: unescaped.details,
      crashes: crashes.exits + crashes.unhandled,
      crashDetails: crashes.details,
      clusterRefusals: fleet.processes.reduce((sum, p) => sum + p.clusterRefusals, 0),
      ms: Date.now() - started,
    };
  } finally {
    await within('the multi-process fleet to stop', 120_000, fleet.stop());
  }
}
