import { afterAll, describe, expect, it } from 'vitest';
import { ApprovalStore } from '../../src/approvals/approval-store.js';
import { htmlPreview, payloadHash } from '../../src/approvals/payload.js';
import { testRedis, uniquePrefix } from '../helpers/redis.js';

/** The approval state machine in Redis: one script, one winner, the worker's check, expiry, the audit stream. */

const prefix = uniquePrefix('approvals-store');
const { redis, cleanup } = testRedis(prefix);
afterAll(cleanup);
const store = new ApprovalStore(redis, prefix);
const CHANNEL = 'CSTORE';
const fields = { post_id: 'blog_0001' };
const hash = payloadHash('deploy_blog', 'acme', fields);

/** The payload hashes of the requests `create` made in CHANNEL: each its own post, so none is identical. */
const hashes = new Set<string>();
let posts = 0;

const create = async (ttlMs = 60_000, now?: number) => {
  const postId = `blog_${String(++posts).padStart(4, '0')}`;
  const own = payloadHash('deploy_blog', 'acme', { post_id: postId });
  hashes.add(own);
  const made = await store.createExclusive(
    {
      action: 'deploy_blog',
      label: 'Blog deploy',
      clientId: 'acme',
      clientLabel: 'Acme',
      fields: { post_id: postId },
      hash: own,
      preview: { kind: 'deploy', postId },
      requestedBy: 'UMEMBER',
      channel: CHANNEL,
      ttlMs,
    },
    now,
  );
  if (!('created' in made)) throw new Error('a distinct payload was found pending');
  return made.created;
};

describe('approval transitions', () => {
  it('lets exactly one of many concurrent approvals win, numbering its job', async () => {
    const record = await create();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        store.transition(record.id, CHANNEL, 'approved', { actor: `U${i}`, jobKey: `appr-${record.id}` }),
      ),
    );
    const winners = results.filter((r) => r.ok);
    expect(winners).toHaveLength(1);
    expect(results.filter((r) => !r.ok && r.state === 'approved')).toHaveLength(49);
    const after = await store.get(record.id);
    expect(after?.jobKey).toBe(`appr-${record.id}-1`);
    expect(after?.runs).toBe(1);
  });

  it('lets the worker run only the approved job with the approved payload, and a second attempt of it', async () => {
    const record = await create();
    await store.transition(record.id, CHANNEL, 'approved', { actor: 'UADMIN', jobKey: `appr-${record.id}` });
    const jobKey = `appr-${record.id}-1`;
    const { hash } = record;
    const other = payloadHash('deploy_blog', 'acme', { post_id: 'blog_9999' });
    expect(
      (await store.transition(record.id, CHANNEL, 'running', { actor: 'w', jobKey, hash: other })).ok,
    ).toBe(false);
    expect(
      (await store.transition(record.id, CHANNEL, 'running', { actor: 'w', jobKey: 'forged', hash })).ok,
    ).toBe(false);
    expect((await store.transition(record.id, CHANNEL, 'running', { actor: 'w', jobKey, hash })).ok).toBe(
      true,
    );
    expect((await store.transition(record.id, CHANNEL, 'running', { actor: 'w', jobKey, hash })).ok).toBe(
      true,
    );
    expect((await store.transition(record.id, CHANNEL, 'done', { actor: 'w', jobKey: 'forged' })).ok).toBe(
      false,
    );
    const done = await store.transition(record.id, CHANNEL, 'done', {
      actor: 'w',
      jobKey,
      recordId: 'dep_1',
    });
    expect(done.ok && done.record.recordId).toBe('dep_1');
    // Done is final: no approval, no run.
    expect(
      (await store.transition(record.id, CHANNEL, 'approved', { actor: 'UADMIN', jobKey: 'x' })).ok,
    ).toBe(false);
  });

  it('refuses the requester when self-approval is off, and a click from another channel', async () => {
    const record = await create();
    const self = await store.transition(record.id, CHANNEL, 'approved', {
      actor: 'UMEMBER',
      jobKey: 'k',
      forbidSelf: true,
    });
    expect(self).toMatchObject({ ok: false, self: true, state: 'pending' });
    const elsewhere = await store.transition(record.id, 'COTHER', 'approved', {
      actor: 'UADMIN',
      jobKey: 'k',
    });
    expect(elsewhere).toMatchObject({ ok: false, state: 'missing' });
    const allowed = await store.transition(record.id, CHANNEL, 'approved', { actor: 'UMEMBER', jobKey: 'k' });
    expect(allowed.ok).toBe(true);
  });

  it('never approves a request past its expiry, even before the expiry job ran', async () => {
    const record = await create(1_000, Date.now() - 5_000);
    const late = await store.transition(record.id, CHANNEL, 'approved', { actor: 'UADMIN', jobKey: 'k' });
    expect(late).toMatchObject({ ok: false, state: 'expired' });
    expect((await store.get(record.id))?.state).toBe('expired');
  });

  it('judges expiry by Redis’s clock: a caller whose clock is a minute behind cannot approve an expired request', async () => {
    const record = await create(1_000, Date.now() - 5_000);
    const behind = Date.now() - 60_000;
    const late = await store.transition(
      record.id,
      CHANNEL,
      'approved',
      { actor: 'UADMIN', jobKey: 'k' },
      behind,
    );
    expect(late).toMatchObject({ ok: false, state: 'expired' });
    expect((await store.get(record.id))?.state).toBe('expired');
  });

  it('appends every step to the channel’s audit stream, newest first, paged', async () => {
    const page = await store.history(CHANNEL, 3);
    expect(page).toHaveLength(3);
    expect(page[0]?.state).toBe('expired');
    const next = await store.history(CHANNEL, 3, page.at(-1)?.id);
    expect((next[0]?.id ?? '') < (page.at(-1)?.id ?? '')).toBe(true);
    expect(next.length).toBeGreaterThan(0);
    expect(next.every((e) => hashes.has(e.hash))).toBe(true);
  });
});

describe('the frozen payload', () => {
  it('hashes the same payload alike whatever the key order, and another payload otherwise', () => {
    expect(payloadHash('a', 'c', { x: 1, y: [1, { b: 2, a: 1 }] })).toBe(
      payloadHash('a', 'c', { y: [1, { a: 1, b: 2 }], x: 1 }),
    );
    expect(payloadHash('a', 'c', { x: 1 })).not.toBe(payloadHash('a', 'c', { x: 2 }));
  });

  it('previews html as plain text', () => {
    expect(htmlPreview('<p>Hi <b>Ed</b> &amp; team</p><script>x()</script><p>Bye&#33;</p>')).toBe(
      'Hi Ed & team Bye!',
    );
    expect(htmlPreview(`<p>${'a'.repeat(400)}</p>`)).toHaveLength(300);
  });
});

describe('identical requests', () => {
  const input = (channel: string, ttlMs = 60_000) => ({
    action: 'deploy_blog',
    label: 'Blog deploy',
    clientId: 'acme',
    clientLabel: 'Acme',
    fields,
    hash,
    preview: { kind: 'deploy' as const, postId: 'blog_0001' },
    requestedBy: 'UMEMBER',
    channel,
    ttlMs,
  });

  it('creates one of many concurrent identical requests, and another once it left pending', async () => {
    const made = await Promise.all(Array.from({ length: 20 }, () => store.createExclusive(input('CIDENT'))));
    const created = made.flatMap((m) => ('created' in m ? [m.created] : []));
    expect(created).toHaveLength(1);
    const first = created[0] as (typeof created)[0];
    for (const m of made) if ('pending' in m) expect(m.pending.id).toBe(first.id);
    await store.transition(first.id, 'CIDENT', 'rejected', { actor: 'UADMIN' });
    expect('created' in (await store.createExclusive(input('CIDENT')))).toBe(true);
  });

  it('releases an identical request found past its expiry, before its expiry job ran', async () => {
    const t0 = Date.now();
    const first = await store.createExclusive(input('CEXPIRY', 1_000), t0);
    expect('created' in first).toBe(true);
    expect('pending' in (await store.createExclusive(input('CEXPIRY', 1_000), t0 + 500))).toBe(true);
    const later = await store.createExclusive(input('CEXPIRY', 1_000), t0 + 2_000);
    expect('created' in later).toBe(true);
  });
});
