import { afterAll, describe, expect, it } from 'vitest';
import { BindingStore } from '../../src/bindings/binding-store.js';
import { testRedis, uniquePrefix } from '../helpers/redis.js';

/**
 * The set of bound channels that Home and the assistant tools list: it follows bind, rebind and unbind, and
 * an install upgraded from before the set existed gets its old bindings into it at start.
 */

const prefix = uniquePrefix('bindings');
const { redis, cleanup } = testRedis(prefix);
const store = new BindingStore(redis, prefix);
const binding = (channel: string, clientId: string, boundAt: string) => ({
  channel,
  clientId,
  clientLabel: clientId,
  boundBy: 'UADMIN',
  boundAt,
});

afterAll(cleanup);

describe('channel bindings', () => {
  it('lists a client’s channels first bound first, and follows a rebind and an unbind', async () => {
    await store.set(binding('C2', 'acme', '2026-01-02T00:00:00Z'));
    await store.set(binding('C1', 'acme', '2026-01-03T00:00:00Z'));
    await store.set(binding('C3', 'beta', '2026-01-01T00:00:00Z'));
    expect(await store.channelsOf('acme')).toEqual(['C2', 'C1']);
    await store.set(binding('C2', 'beta', '2026-01-04T00:00:00Z'));
    expect(await store.channelsOf('acme')).toEqual(['C1']);
    expect(await store.channelsOf('beta')).toEqual(['C3', 'C2']);
    expect(await store.remove('C3')).toBe(true);
    expect((await store.all()).map((b) => b.channel)).toEqual(['C1', 'C2']);
  });
});
