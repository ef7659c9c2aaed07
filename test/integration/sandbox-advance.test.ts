import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recentAnchor, type Sandbox, startSandbox } from '../../src/sandbox/index.js';

/** `POST /__sandbox/advance`: a day passes upstream, with ranking history kept (several observations a keyword). */

let sandbox: Sandbox;
beforeAll(async () => {
  // Its data ends yesterday, as the demo's does: a day advanced is today, the next one tomorrow.
  sandbox = await startSandbox({ port: 0, anchorDate: recentAnchor() });
});
afterAll(async () => {
  await sandbox?.close();
});

async function read(resource: string, params: Record<string, string> = {}) {
  const query = new URLSearchParams({ resource, client_id: 'bright-dental', limit: '1000', ...params });
  const res = await request(`${sandbox.url}?${query}`, { headers: { authorization: 'Bearer sandbox-key' } });
  return (await res.body.json()) as { data: Array<Record<string, unknown>>; pagination: { total: number } };
}

describe('sandbox advance', () => {
  it('adds a day: new reviews (a bad one, a late one) and a new observation per keyword with movers', async () => {
    const keywordsBefore = await read('keywords');
    const reviewsBefore = await read('reviews');
    // History is there before any advance: every keyword is observed on several dates.
    const dates = new Set(keywordsBefore.data.map((r) => r.tracked_at));
    expect(dates.size).toBeGreaterThan(1);

    const res = await request(`${sandbox.origin}/__sandbox/advance`, {
      method: 'POST',
      body: JSON.stringify({ client_id: 'bright-dental' }),
    });
    expect(res.statusCode).toBe(200);
    const { advanced } = (await res.body.json()) as { advanced: Array<{ day: string; reviews: number }> };
    expect(advanced).toHaveLength(1);
    const day = advanced[0]!.day;

    const keywordsAfter = await read('keywords', { order: 'tracked_at' });
    const todays = keywordsAfter.data.filter((r) => r.tracked_at === day);
    expect(keywordsAfter.pagination.total).toBe(keywordsBefore.pagination.total + todays.length);
    expect(todays.some((r) => r.position === 1)).toBe(true);
    expect(todays.some((r) => r.status === 'paused')).toBe(true);

    const reviewsAfter = await read('reviews');
    const fresh = reviewsAfter.data.filter((r) => !reviewsBefore.data.some((b) => b.id === r.id));
    expect(fresh).toHaveLength(advanced[0]!.reviews);
    expect(fresh.some((r) => Number(r.rating) <= 2)).toBe(true);
    expect(fresh.some((r) => String(r.created_at) < day)).toBe(true);
    // A new keyword reads like a search, with no date in it.
    const added = todays.filter((r) => !keywordsBefore.data.some((b) => b.keyword === r.keyword));
    expect(added.map((r) => String(r.keyword))).not.toContainEqual(expect.stringMatching(/\d{6,}/));

    // A second day, past today: still no review dated after now.
    await request(`${sandbox.origin}/__sandbox/advance`, {
      method: 'POST',
      body: JSON.stringify({ client_id: 'bright-dental' }),
    }).then((r) => r.body.dump());
    const now = new Date().toISOString();
    const later = (await read('reviews')).data.filter((r) => String(r.created_at) > now);
    expect(later).toEqual([]);

    const unknown = await request(`${sandbox.origin}/__sandbox/advance`, {
      method: 'POST',
      body: JSON.stringify({ client_id: 'nobody' }),
    });
    expect(unknown.statusCode).toBe(400);
    await unknown.body.dump();
  });
});
