import { describe, expect, it } from 'vitest';
import { TtlCache } from '../../src/access/user-directory.js';

describe('the access answers cache', () => {
  it('shares one lookup between concurrent callers and remembers the answer', async () => {
    const cache = new TtlCache<string>(60_000, 10);
    let calls = 0;
    const load = async () => {
      calls += 1;
      await new Promise((r) => setTimeout(r, 10));
      return 'member';
    };
    const answers = await Promise.all([cache.get('U1', load), cache.get('U1', load), cache.get('U1', load)]);
    expect(answers).toEqual(['member', 'member', 'member']);
    expect(await cache.get('U1', load)).toBe('member');
    expect(calls).toBe(1);
  });

  it('stays within its size, dropping the oldest answers first', async () => {
    const cache = new TtlCache<number>(60_000, 3);
    for (let i = 0; i < 10; i++) await cache.get(`U${i}`, async () => i);
    expect(cache.size).toBe(3);
    let reloaded = false;
    await cache.get('U0', async () => {
      reloaded = true;
      return 0;
    });
    expect(reloaded).toBe(true);
  });

  it('asks again after the answer expires, and never remembers a failure', async () => {
    const cache = new TtlCache<string>(20, 10);
    let calls = 0;
    await expect(
      cache.get('U1', async () => {
        calls += 1;
        throw new Error('users.info failed');
      }),
    ).rejects.toThrow('users.info failed');
    expect(await cache.get('U1', async () => `answer ${++calls}`)).toBe('answer 2');
    await new Promise((r) => setTimeout(r, 40));
    expect(await cache.get('U1', async () => `answer ${++calls}`)).toBe('answer 3');
  });
});
