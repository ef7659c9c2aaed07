import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { defineScript, runScript } from '../../src/redis/scripts.js';
import { testRedis, uniquePrefix } from '../helpers/redis.js';

/** Lua scripts are defined once per connection and called by name (EVALSHA), not sent with every call. */

const prefix = uniquePrefix('redis-scripts');
const { redis, cleanup } = testRedis(prefix);
afterAll(cleanup);

const lua = `return redis.call('INCRBY', KEYS[1], ARGV[1])`;
const INCR = defineScript('gwTestIncrBy', 1, lua);
const sha = createHash('sha1').update(lua).digest('hex');

describe('redis scripts', () => {
  it('runs a script by name on the connection, and Redis keeps it by its hash after the first call', async () => {
    const key = `${prefix}:counter`;
    expect(await runScript(redis, INCR, [key], [2])).toBe(2);
    expect(await runScript(redis, INCR, [key], [3])).toBe(5);
    expect(await redis.script('EXISTS', sha)).toEqual([1]);
    expect(typeof (redis as unknown as Record<string, unknown>).gwTestIncrBy).toBe('function');
  });

  it('refuses a call with the wrong number of keys before Redis sees it', () => {
    expect(() => runScript(redis, INCR, [], [1])).toThrow(/takes 1 keys/);
  });
});
