import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, bind, type Harness, MEMBER, textOf } from '../helpers/bot-harness.js';
import { digestReads, startDigestHarness } from '../helpers/digest-harness.js';

/**
 * `digest now` is a full scan charged to the agency key: while one is on its way in a channel, another of the
 * same kind is told so and starts nothing; a non-admin waits a few minutes between two of one kind in one
 * channel. The gateway's reads are slowed so that the first is still scanning when the second arrives.
 */

let h: Harness;
const { digestsIn, nthDigest, ephemeralTo } = digestReads(() => h);
const OTHER = 'UOTHERMEMBER';

beforeAll(async () => {
  h = await startDigestHarness('e2e-digest-now-limits', 600_000, { DIGEST_NOW_COOLDOWN: '5m' });
});
afterAll(async () => {
  await h?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** How many review pages the gateway was asked for. */
const reviewReads = () =>
  h.sandbox.requests().filter((r) => r.method === 'GET' && r.resource === 'reviews').length;

describe('digest now', () => {
  it('runs once per channel and kind while one is on its way; the second asker is told, nothing more is read', async () => {
    const channel = 'CNOWONCE';
    await bind(h, 'harbor-law', channel);
    h.sandbox.setKnobs({ latencyMs: 400 });
    await h.gateway('digest now reviews', { user: MEMBER, channel });
    await h.gateway('digest now reviews', { user: OTHER, channel });
    const told = await ephemeralTo(OTHER, channel, /already on its way/);
    expect(told).toContain(`asked for by <@${MEMBER}>`);
    await h.gateway('digest now reviews', { user: ADMIN, channel });
    await ephemeralTo(ADMIN, channel, /already on its way/);
    h.sandbox.setKnobs({ latencyMs: 0 });
    await nthDigest(channel, 1);
    const reads = reviewReads();
    await sleep(500);
    expect(digestsIn(channel)).toHaveLength(1);
    expect(reviewReads()).toBe(reads);
    // Once it has read everything, another may be asked for (an admin has no cooldown): nothing new.
    await h.gateway('digest now reviews', { user: ADMIN, channel });
    await ephemeralTo(ADMIN, channel, /Nothing new since/);
  });

  // MEMBER asked for the reviews digest of another channel in the test above, a moment ago.
  it('holds a non-admin to one digest of a kind per channel for the cooldown, saying how long is left; an admin is not held', async () => {
    const channel = 'CNOWCOOL';
    await bind(h, 'bright-dental', channel);
    // Another channel, then another kind: neither is held up by the digests asked for before.
    await h.gateway('digest now rankings', { user: MEMBER, channel });
    expect((await nthDigest(channel, 1)).all).toMatch(/tracking \d+ keywords from now on/);
    await h.gateway('digest now reviews', { user: MEMBER, channel });
    await nthDigest(channel, 2);
    await h.gateway('digest now rankings', { user: MEMBER, channel });
    const refusal = await ephemeralTo(MEMBER, channel, /you can ask for it again in/);
    // The time left as it is (five minutes less the seconds since), not rounded up to whole minutes.
    expect(refusal).toMatch(
      /this channel’s rankings digest lately; you can ask for it again in (5 min|4 min \d{1,2} s)\./,
    );
    expect(refusal).toContain('once every 5 min');
    await sleep(300);
    expect(digestsIn(channel)).toHaveLength(2);
    await h.gateway('digest now rankings', { user: ADMIN, channel });
    expect(
      textOf(await h.ephemeral((m) => /Nothing new since/.test(textOf(m)), { user: ADMIN, channel })),
    ).toContain('no ranking changes');
  });
});
