import { request } from 'undici';
import { auditJobs, blockKitViolations, type JobAudit, unescapedMentions, waitSettled } from './audit.js';
import { FLEET_ADMIN, FLEET_MEMBER, Fleet } from './fleet.js';
import { bindChannel, FLEET_CLIENT, mixedCommand, sendAll } from './mixed.js';

/**
 * 2 web, 3 worker and 1 scheduler processes (src/main.ts each) on one Redis; `commands` mixed commands
 * through the Slack stand-in, signed, to the web processes in turn. Used by the e2e test (a small size) and
 * by `npm run faults -- --full` (1,000).
 */

export interface MultiProcessResult {
  sizes: { web: number; workers: number; schedulers: number; commands: number; actions: number };
  audit: JobAudit;
  /** Jobs each worker process finished (its own /metrics). */
  perWorker: number[];
  /** POSTs the gateway received per action marker, most. */
  maxPostsPerJob: number;
  schedulerHealthy: boolean;
  /** Scheduled runs that happened twice for one (subscription, period); digests are not built yet. */
  doubledSchedulerRuns: number | 'not yet built';
  blockKit: number;
  unescaped: number;
  crashes: number;
  crashDetails: string[];
  ms: number;
}

export async function runMultiProcess(redisUrl: string, commands: number): Promise<MultiProcessResult> {
  const started = Date.now();
  const fleet = await Fleet.start({ name: 'multi', redisUrl, web: 2, workers: 3, schedulers: 1 });
  try {
    const channel = 'CFLEET';
    await bindChannel(fleet, channel);
    const sent = await sendAll(fleet, commands, (i) => mixedCommand(i), { channel, inFlight: 8 });
    await waitSettled(fleet, sent, 60_000 + commands * 100);
    const audit = await auditJobs(fleet, sent, FLEET_CLIENT);
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
      const health = await request(`http://127.0.0.1:${scheduler.port}/healthz`);
      schedulerHealthy = health.statusCode === 200;
      await health.body.dump();
    }
    const crashes = fleet.crashes();
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
      doubledSchedulerRuns: 'not yet built',
      blockKit: blockKitViolations(fleet.slack).count,
      unescaped: unescapedMentions(fleet.slack, [channel], [FLEET_ADMIN, FLEET_MEMBER]).count,
      crashes: crashes.exits + crashes.unhandled,
      crashDetails: crashes.details,
      ms: Date.now() - started,
    };
  } finally {
    await fleet.stop();
  }
}
