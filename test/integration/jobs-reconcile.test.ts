import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reconcile } from '../../src/jobs/reconcile.js';
import { ActionLedger, actionFingerprint } from '../../src/store/ledger.js';
import { type JobsHarness, startJobsHarness } from '../fixtures/jobs-harness.js';

/** "Absent" lets a job POST again, so it must mean every record since the attempt was read and none is ours. */

let h: JobsHarness;

beforeAll(async () => {
  h = await startJobsHarness('jobs-reconcile', { workers: false });
});
afterAll(async () => {
  await h?.close();
});
beforeEach(() => {
  h.sandbox.reset();
});

const CLIENT = 'acme-plumbing';

function lookFor(keyword: string, more: { maxRows?: number } = {}) {
  const entry = h.catalogue.byAction('generate_blog')!;
  const fields = { keyword };
  return reconcile({
    gateway: h.gateway,
    ledger: new ActionLedger(h.redis, h.prefix),
    entry,
    jobKey: `job-${keyword}`,
    clientId: CLIENT,
    fields,
    fingerprint: actionFingerprint(entry, CLIENT, fields),
    startedAt: Date.now() - 1_000,
    ...more,
  });
}

function blogsMadeNow(n: number, row: (i: number) => Record<string, unknown>) {
  const now = new Date().toISOString();
  h.sandbox.insertRows(
    CLIENT,
    'blogs',
    Array.from({ length: n }, (_, i) => ({ id: `blog_new_${i}`, created_at: now, ...row(i) })),
  );
}

describe('reconciliation after an unknown outcome', () => {
  it('answers absent when every record since the attempt was read and none matches', async () => {
    blogsMadeNow(3, (i) => ({ keyword: `other keyword ${i}` }));
    expect(await lookFor('french drain install', { maxRows: 10 })).toEqual({ kind: 'absent' });
  });

  it('finds the record with the same key fields', async () => {
    blogsMadeNow(1, () => ({ keyword: 'French Drain Install ' }));
    expect(await lookFor('french drain install')).toMatchObject({ kind: 'found', recordId: 'blog_new_0' });
  });

  it('cannot tell when more records were made since the attempt than it may read', async () => {
    blogsMadeNow(6, (i) => ({ keyword: `other keyword ${i}` }));
    const found = await lookFor('french drain install', { maxRows: 5 });
    expect(found).toMatchObject({ kind: 'unknown' });
  });

  it('cannot tell when a record made since the attempt does not show the key field', async () => {
    blogsMadeNow(1, () => ({ post_title: 'French drains, explained' }));
    const found = await lookFor('french drain install');
    expect(found).toMatchObject({ kind: 'unknown', reason: expect.stringContaining('keyword') });
  });
});
