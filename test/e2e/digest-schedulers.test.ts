import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeSlack } from '../../src/local/fake-slack/index.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { textOf } from '../helpers/bot-harness.js';
import { type RoleFleet, startRoleFleet } from '../helpers/role-fleet.js';

/**
 * Two scheduler roles and three worker roles, separate runtimes on one Redis, through many periods of a fast
 * `every` schedule while reviews keep arriving: each period posts exactly once, and every review is reported
 * exactly once.
 */

const CHANNEL = 'CMULTI';
const PERIOD_MS = 700;
const PERIODS = 8;
let fleet: RoleFleet;
let slack: FakeSlack;
let sandbox: Sandbox;
const start = (role: string) =>
  fleet.start(role, { digests: { pollMs: 100, jobOptions: { backoff: { type: 'fixed', delay: 50 } } } });

beforeAll(async () => {
  fleet = await startRoleFleet('e2e-digest-roles', { sandboxLatencyMs: 5 });
  ({ slack, sandbox } = fleet);
});
afterAll(async () => {
  await fleet?.close();
});

const digests = () =>
  slack
    .messages(CHANNEL)
    .filter((m) => (m.metadata as { event_type?: string })?.event_type === 'gateway_digest');
const runOf = (m: { metadata?: unknown }) =>
  (m.metadata as { event_payload: { run: string } }).event_payload.run;

describe('digest schedulers and workers side by side', () => {
  it('posts each period of a fast schedule exactly once with two schedulers and three workers', async () => {
    const schedulers = [await start('scheduler'), await start('scheduler')];
    const workers = [await start('worker'), await start('worker'), await start('worker')];
    expect(schedulers.every((r) => r.scheduler && !r.workers && !r.digestWorkers && !r.bot)).toBe(true);
    expect(workers.every((r) => r.digestWorkers && !r.scheduler)).toBe(true);
    const services = workers[0]!.services;
    await services.bindings.set({
      channel: CHANNEL,
      clientId: 'harbor-law',
      clientLabel: 'Harbor Law Group',
      boundBy: 'UADMIN',
      boundAt: new Date().toISOString(),
    });
    await services.digests.save({
      channel: CHANNEL,
      kind: 'reviews',
      schedule: { kind: 'every', ms: PERIOD_MS },
      tz: 'UTC',
      filters: {},
      createdBy: 'UADMIN',
      createdAt: new Date().toISOString(),
    });
    // The first period records the baseline; then a review arrives every 200 ms, so every period has news.
    await slack.waitFor(() => digests()[0], { what: 'the baseline', timeoutMs: 10_000 });
    const inserted: string[] = [];
    let outcome: unknown;
    const feeder = setInterval(() => {
      const n = inserted.length + 1;
      inserted.push(`Reviewer ${n}`);
      sandbox.insertRows('harbor-law', 'reviews', [
        {
          id: `rev_multi_${n}`,
          author: `Reviewer ${n}`,
          rating: 1,
          text: 'Never showed up.',
          sentiment: 'negative',
          created_at: new Date().toISOString(),
        },
      ]);
    }, 200);
    try {
      await slack.waitFor(() => digests().length >= PERIODS + 1 || undefined, {
        what: `${PERIODS} digests after the baseline`,
        timeoutMs: PERIODS * PERIOD_MS * 4,
      });
    } finally {
      clearInterval(feeder);
    }
    // A doubled job for a period that has already posted (a second scheduler's, a redelivery) posts nothing.
    const claimed = runOf(digests()[2]!);
    await services.digestQueue.queue.add(
      'digest',
      { channel: CHANNEL, kind: 'reviews', trigger: 'schedule' },
      { jobId: 'doubled-period', prevMillis: Number(claimed.slice(1)) * PERIOD_MS },
    );
    const doubled = await slack.waitFor(
      () => {
        void services.digestQueue.queue.getJob('doubled-period').then((job) => {
          outcome = job?.returnvalue;
        });
        return outcome;
      },
      { what: 'the doubled job to finish', timeoutMs: 10_000 },
    );
    expect(doubled).toEqual({ outcome: 'duplicate' });

    // Let the last period that saw the feeder's final review post too, then stop the schedule.
    await new Promise((r) => setTimeout(r, PERIOD_MS * 2.5));
    await services.digests.remove(CHANNEL, 'reviews');
    await new Promise((r) => setTimeout(r, PERIOD_MS));

    const posted = digests();
    const runs = posted.map(runOf);
    expect(new Set(runs).size).toBe(runs.length);
    expect(runs.every((run) => /^e\d+$/.test(run))).toBe(true);
    // Every review that arrived is reported once: none lost, none doubled.
    const reported = posted
      .slice(1)
      .flatMap((m) => slack.thread(CHANNEL, m.ts))
      .map(textOf)
      .join('\n')
      .match(/Reviewer \d+/g);
    const counts = new Map<string, number>();
    for (const name of reported ?? []) counts.set(name, (counts.get(name) ?? 0) + 1);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    expect([...counts.keys()].sort()).toEqual([...inserted].sort());
  });
});
