import { afterAll, describe, expect, it } from 'vitest';
import { HomeMarks } from '../../src/store/home-marks.js';
import { testRedis, uniquePrefix } from '../helpers/redis.js';

const prefix = uniquePrefix('home-marks');
const { redis, cleanup } = testRedis(prefix);
afterAll(cleanup);

const DAY = 86_400_000;

describe('Home marks in Redis', () => {
  it('marks only people who opened Home in the last 7 days, due 2 s after the first change', async () => {
    const marks = new HomeMarks(redis, `${prefix}:a`);
    const now = 1_000_000_000_000;
    await marks.opened('URECENT', false, now - DAY);
    await marks.opened('USTALE', false, now - 8 * DAY);
    await marks.mark(['URECENT', 'USTALE', 'UNEVER'], now);
    expect(await marks.takeDue(10, now + 1_999)).toEqual([]);
    // A later change within the 2 s does not push the publish back: the debounce collects, it does not starve.
    await marks.mark(['URECENT'], now + 1_500);
    expect(await marks.takeDue(10, now + 2_000)).toEqual(['URECENT']);
    expect(await marks.takeDue(10, now + 5_000)).toEqual([]);
  });

  it('marks the requester and every approver who opened Home for an approval, and everyone for a digest', async () => {
    const marks = new HomeMarks(redis, `${prefix}:b`);
    const now = 1_000_000_000_000;
    await marks.opened('UAPPROVER', true, now);
    await marks.opened('UASKER', false, now);
    await marks.opened('UBYSTANDER', false, now);
    await marks.approvalChanged('UASKER', now);
    expect((await marks.takeDue(10, now + 2_000)).sort()).toEqual(['UAPPROVER', 'UASKER']);
    await marks.everyone(now + 3_000);
    expect((await marks.takeDue(10, now + 5_000)).sort()).toEqual(['UAPPROVER', 'UASKER', 'UBYSTANDER']);
  });

  it('makes the tabs that show a job due at once when it ends, a debounced mark included', async () => {
    const marks = new HomeMarks(redis, `${prefix}:f`, { admins: ['UADMIN', 'UNEVER'] });
    const now = 1_000_000_000_000;
    await marks.opened('UASKER', false, now);
    await marks.opened('UADMIN', true, now);
    await marks.mark(['UADMIN'], now);
    await marks.jobChanged({ requestedBy: 'UASKER' }, { ended: false }, now);
    expect(await marks.takeDue(10, now + 500)).toEqual([]);
    await marks.jobChanged({ requestedBy: 'UASKER' }, { ended: true }, now + 500);
    expect((await marks.takeDue(10, now + 500)).sort()).toEqual(['UADMIN', 'UASKER']);
    expect(await marks.takeDue(10, now + 5_000)).toEqual([]);
  });

  it('gives each due person to exactly one of many concurrent takers', async () => {
    const marks = new HomeMarks(redis, `${prefix}:c`);
    const now = 1_000_000_000_000;
    const people = Array.from({ length: 15 }, (_, i) => `U${i}`);
    for (const p of people) await marks.opened(p, false, now);
    await marks.mark(people, now);
    const takers = await Promise.all(Array.from({ length: 10 }, () => marks.takeDue(20, now + 2_000)));
    const taken = takers.flat();
    expect(taken.sort()).toEqual([...people].sort());
  });

  it('re-publishes at most 18 in any 15 s; the rest wait for room', async () => {
    const marks = new HomeMarks(redis, `${prefix}:d`);
    const now = 1_000_000_000_000;
    const people = Array.from({ length: 30 }, (_, i) => `U${i}`);
    for (const p of people) await marks.opened(p, false, now);
    await marks.mark(people, now);
    expect(await marks.takeDue(50, now + 2_000)).toHaveLength(18);
    expect(await marks.takeDue(50, now + 10_000)).toHaveLength(0);
    expect(await marks.takeDue(50, now + 17_001)).toHaveLength(12);
  });

  it('puts a person back for as long as Slack asked, never sooner', async () => {
    const marks = new HomeMarks(redis, `${prefix}:e`);
    const now = 1_000_000_000_000;
    await marks.opened('U1', false, now);
    await marks.later('U1', 30_000, now);
    await marks.mark(['U1'], now);
    expect(await marks.takeDue(10, now + 29_999)).toEqual([]);
    expect(await marks.takeDue(10, now + 30_000)).toEqual(['U1']);
  });
});
