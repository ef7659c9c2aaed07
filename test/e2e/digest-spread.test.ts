/**
 * DIGEST_SPREAD: daily digests due at the same minute run spread over the window, each at its (channel, kind)'s
 * slot, and whenever several are ready the small clients go first, a large client's long walk last. The whole
 * bot (its digest workers, BullMQ, Redis, the sandbox's synthetic clients, the Slack stand-in); the jobs are the
 * ones the scheduler's job scheduler adds at the due minute (a `schedule` job with its period's `prevMillis`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIGEST_JOB_NAME } from '../../src/digests/digest-queue.js';
import { spreadOffsetMs } from '../../src/digests/spread.js';
import { ADMIN } from '../helpers/bot-harness.js';
import { digestReads, startDigestHarness } from '../helpers/digest-harness.js';

type Harness = Awaited<ReturnType<typeof startDigestHarness>>;
let h: Harness;
const { digestsIn } = digestReads(() => h);
const SPREAD_MS = 3_000;
const SMALL = Array.from({ length: 6 }, (_, i) => ({ channel: `CSPREAD${i}`, clientId: `synth-20x5-${i}` }));
const LARGE = { channel: 'CSPREADL', clientId: 'synth-2000x20-1' };

beforeAll(async () => {
  h = await startDigestHarness('e2e-digest-spread', 60_000, {
    DIGEST_NOW_COOLDOWN: '1ms',
    DIGEST_SPREAD: `${SPREAD_MS / 1000}s`,
  });
}, 30_000);
afterAll(async () => {
  await h?.close();
});

async function subscribe(channel: string, clientId: string): Promise<void> {
  const { bindings, digests } = h.runtime.services;
  const at = new Date().toISOString();
  await bindings.set({ channel, clientId, clientLabel: clientId, boundBy: ADMIN, boundAt: at });
  await digests.save({
    channel,
    kind: 'rankings',
    schedule: { kind: 'daily', at: '09:00' },
    tz: 'UTC',
    filters: {},
    createdBy: ADMIN,
    createdAt: at,
  });
}

/** The job the job scheduler adds when a daily period falls due at `due`. */
function due(channel: string, dueMs: number, id: string) {
  return h.runtime.services.digestQueue.queue.add(
    DIGEST_JOB_NAME,
    { channel, kind: 'rankings', trigger: 'schedule' },
    { jobId: id, prevMillis: dueMs },
  );
}

const postedAt = (channel: string) => Number(digestsIn(channel)[0]?.ts ?? Number.NaN) * 1000;

describe('digests due at the same minute', () => {
  it('run spread over DIGEST_SPREAD, each at its own slot, not all at once', async () => {
    for (const s of SMALL) await subscribe(s.channel, s.clientId);
    const dueMs = Date.now();
    for (const s of SMALL) await due(s.channel, dueMs, `spread-${s.channel}`);
    await h.slack.waitFor(() => SMALL.every((s) => digestsIn(s.channel).length === 1) || undefined, {
      what: 'the six baselines',
      timeoutMs: 20_000,
    });
    const late = SMALL.map((s) => postedAt(s.channel) - dueMs);
    const slots = SMALL.map((s) => spreadOffsetMs(s.channel, 'rankings', SPREAD_MS));
    // Each ran at its slot, not before (a little after: the run itself and the delayed set's promotion).
    for (const [i, ms] of late.entries()) {
      expect(ms).toBeGreaterThanOrEqual((slots[i] as number) - 20);
      expect(ms).toBeLessThan((slots[i] as number) + 2_500);
    }
    expect(Math.max(...late) - Math.min(...late)).toBeGreaterThan(
      Math.max(...slots) - Math.min(...slots) - 500,
    );
  }, 40_000);

  it('takes the small clients first when several are ready, the large one last', async () => {
    await subscribe(LARGE.channel, LARGE.clientId);
    // The large client's first run (40,000 rows) tells the bot its size.
    await h.gateway('digest now rankings', { user: ADMIN, channel: LARGE.channel });
    await h.slack.waitFor(() => digestsIn(LARGE.channel)[0], { what: 'the baseline', timeoutMs: 30_000 });
    // A period long past its window: every slot has passed, so all are ready at once, the large one first in line.
    const dueMs = Date.now() - 60 * 60_000;
    const queue = h.runtime.services.digestQueue.queue;
    await due(LARGE.channel, dueMs, 'fair-large');
    for (const s of SMALL) await due(s.channel, dueMs, `fair-${s.channel}`);
    const jobs = ['fair-large', ...SMALL.map((s) => `fair-${s.channel}`)];
    await expect
      .poll(async () => (await Promise.all(jobs.map((id) => queue.getJobState(id)))).join(), {
        timeout: 30_000,
        interval: 100,
      })
      .toBe(jobs.map(() => 'completed').join());
    const started = await Promise.all(jobs.map(async (id) => (await queue.getJob(id))?.processedOn ?? 0));
    const [large = 0, ...small] = started;
    // Its last start (the run proper, after it was placed) comes after every small one's.
    expect(large).toBeGreaterThanOrEqual(Math.max(...small));
  }, 60_000);
});
