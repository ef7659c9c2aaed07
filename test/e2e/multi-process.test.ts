/**
 * The bot as it is deployed: 2 web, 3 worker and 1 scheduler processes (src/main.ts each) on one Redis,
 * mixed commands signed and sent to the web processes in turn while a digest runs every second. Every job is
 * done once, the work is spread across the workers, every command is answered, no scheduled period posts twice. `npm run faults -- --full` runs it with 1,000 commands.
 */
import { describe, expect, it } from 'vitest';
import { runMultiProcess } from '../fleet/multi-process.js';
import { TEST_REDIS_URL } from '../helpers/redis.js';

const COMMANDS = 100;

describe('2 web, 3 worker and 1 scheduler processes on one Redis', () => {
  it(`runs every job of ${COMMANDS} mixed commands once, spread across the workers`, async () => {
    const r = await runMultiProcess(TEST_REDIS_URL, COMMANDS);
    expect(r.crashDetails).toEqual([]);
    expect(r.audit.details).toEqual([]);
    expect(r.audit).toMatchObject({ lost: 0, silent: 0, duplicates: 0, failed: 0, attention: 0 });
    expect(r.audit.done).toBe(r.sizes.actions);
    expect(r.audit.told).toBe(COMMANDS - r.sizes.actions);
    expect(r.maxPostsPerJob).toBe(1);
    expect(r.perWorker).toHaveLength(3);
    expect(r.perWorker.reduce((a, b) => a + b, 0)).toBe(r.sizes.actions);
    for (const jobs of r.perWorker) expect(jobs).toBeGreaterThan(0);
    expect(r.schedulerHealthy).toBe(true);
    expect(r.digestRuns).toBeGreaterThanOrEqual(2);
    expect(r.doubledSchedulerRuns).toBe(0);
    expect(r.blockKit).toBe(0);
    expect(r.unescapedDetails).toEqual([]);
    expect(r.unescaped).toBe(0);
  }, 180_000);
});
