import { afterAll, describe, expect, it } from 'vitest';
import { ApprovalStore } from '../../src/approvals/approval-store.js';
import { testRedis, uniquePrefix } from '../helpers/redis.js';

/** The approval indexes the Home tab reads: kept by the store, bounded, and filled once with what came before them. */

const prefix = uniquePrefix('home-indexes');
const { redis, cleanup } = testRedis(prefix);
afterAll(cleanup);

const approval = (i: number, requestedBy = 'UASK') => ({
  action: 'deploy_blog',
  label: 'Blog deploy',
  clientId: 'acme',
  clientLabel: 'Acme',
  fields: { post_id: `p${i}` },
  hash: `h${i}`,
  preview: { kind: 'deploy' as const, postId: `p${i}` },
  requestedBy,
  channel: 'C1',
  ttlMs: 3_600_000,
});

describe('the Home tab’s indexes', () => {
  it('lists pending approvals newest first and drops them once decided; each requester’s own, whatever state', async () => {
    const changed: string[] = [];
    const store = new ApprovalStore(redis, `${prefix}:a`, {
      changed: async (r) => {
        changed.push(`${r.id}:${r.state}`);
      },
    });
    const base = Date.now();
    const made = [];
    for (let i = 0; i < 3; i++) {
      const r = await store.createExclusive(approval(i), base + i);
      if ('created' in r) made.push(r.created);
    }
    const [first, , last] = made;
    if (!first || !last) throw new Error('not created');
    expect((await store.pending(10, base + 10)).records.map((r) => r.id)).toEqual(
      made.map((r) => r.id).reverse(),
    );
    await store.transition(first.id, 'C1', 'rejected', { actor: 'UADMIN' }, base + 20);
    const left = await store.pending(10, base + 30);
    expect(left.records.map((r) => r.id)).not.toContain(first.id);
    expect(left.total).toBe(2);
    expect((await store.requestedBy('UASK', 10)).map((r) => r.state).sort()).toEqual([
      'pending',
      'pending',
      'rejected',
    ]);
    expect(changed).toContain(`${first.id}:rejected`);
    expect(changed).toContain(`${last.id}:pending`);
  });
});
