import { afterAll, describe, expect, it } from 'vitest';
import { claimInFlight, inFlightKey, releaseJobClaim } from '../../src/store/claims.js';
import { testRedis, uniquePrefix } from '../helpers/redis.js';

/** The in-flight fingerprint claims against a real Redis. */

const prefix = uniquePrefix('store-in-flight');
const { redis, cleanup } = testRedis(prefix);
afterAll(cleanup);

const id = { clientId: 'harbor-law', action: 'generate_blog', fingerprint: 'fp1' };
const claim = (jobKey: string) =>
  claimInFlight(redis, prefix, id, { jobKey, requestedBy: 'U1', fields: { keyword: 'wills' }, at: 1 });

describe('in-flight claims', () => {
  it('lets one of many concurrent claims win and names the winner to the others', async () => {
    const answers = await Promise.all(['a', 'b', 'c', 'd'].map((k) => claim(`cmd-${k}`)));
    const winners = answers.filter((a) => a.claimed);
    expect(winners).toHaveLength(1);
    const holders = new Set(answers.flatMap((a) => (a.claimed ? [] : [a.holder?.jobKey])));
    expect(holders.size).toBe(1);
    expect(await redis.ttl(inFlightKey(prefix, id))).toBeGreaterThan(3_600);
  });

  it('is given back only by the job that holds it', async () => {
    const holder = JSON.parse((await redis.get(inFlightKey(prefix, id))) ?? '{}').jobKey as string;
    await releaseJobClaim(redis, prefix, { ...id, jobKey: 'cmd-someone-else', holdsFingerprint: 'fp1' });
    await releaseJobClaim(redis, prefix, { ...id, jobKey: holder });
    expect(await redis.exists(inFlightKey(prefix, id))).toBe(1);
    await releaseJobClaim(redis, prefix, { ...id, jobKey: holder, holdsFingerprint: 'fp1' });
    expect(await redis.exists(inFlightKey(prefix, id))).toBe(0);
    expect((await claim('cmd-later')).claimed).toBe(true);
  });
});
