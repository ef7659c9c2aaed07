import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActionLedger, fingerprint } from '../../src/store/ledger.js';
import { testRedis, uniquePrefix } from '../helpers/redis.js';

const prefix = uniquePrefix('jobs-ledger');
const { redis, cleanup } = testRedis(prefix);
let ledger: ActionLedger;

beforeAll(() => {
  ledger = new ActionLedger(redis, prefix, { ttlSec: 60, perClient: 3 });
});
afterAll(async () => {
  await cleanup();
});

const entry = (jobKey: string, recordId: string, keyword: string, at: number) => ({
  recordId,
  jobKey,
  action: 'generate_blog',
  clientId: 'acme',
  fingerprint: fingerprint('generate_blog', 'acme', { keyword }),
  fields: { keyword },
  at,
});

describe('action ledger', () => {
  it('finds earlier successes by fingerprint and by job, newest first', async () => {
    await ledger.recordSuccess(entry('j1', 'blog_1', 'plumber', 1));
    await ledger.recordSuccess(entry('j2', 'blog_2', 'plumber', 2));
    await ledger.recordSuccess(entry('j3', 'blog_3', 'dentist', 3));
    const fp = fingerprint('generate_blog', 'acme', { keyword: 'plumber' });
    expect((await ledger.findByFingerprint('acme', 'generate_blog', fp)).map((e) => e.recordId)).toEqual([
      'blog_2',
      'blog_1',
    ]);
    expect((await ledger.findByJob('j3'))?.recordId).toBe('blog_3');
    expect(await ledger.findByJob('nope')).toBeUndefined();
    expect(await ledger.findByFingerprint('bright', 'generate_blog', fp)).toEqual([]);
  });

  it('records a job once, however often a re-run records it', async () => {
    const first = await ledger.recordSuccess(entry('j4', 'blog_4', 'roofer', 4));
    const again = await ledger.recordSuccess(entry('j4', 'blog_other', 'roofer', 5));
    expect(again).toEqual(first);
    const fp = fingerprint('generate_blog', 'acme', { keyword: 'roofer' });
    expect(await ledger.findByFingerprint('acme', 'generate_blog', fp)).toHaveLength(1);
  });

  it("keeps a client's recent successes, newest first, trimmed and expiring", async () => {
    const recent = await ledger.recentForClient('acme', 10);
    expect(recent.map((e) => e.jobKey)).toEqual(['j4', 'j3', 'j2']);
    expect(await redis.ttl(`${prefix}:ledger:client:acme`)).toBeGreaterThan(0);
    expect(await ledger.recentForClient('harbor', 5)).toEqual([]);
  });
});
