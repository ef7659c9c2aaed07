import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextRunAt } from '../../src/digests/schedule.js';
import type { FakeMessage } from '../../src/local/fake-slack/index.js';
import { formatWhen } from '../../src/views/digest-common.js';
import { ADMIN, bind, type Harness, MEMBER, textOf } from '../helpers/bot-harness.js';
import { digestReads, startDigestHarness } from '../helpers/digest-harness.js';

/**
 * What a person reads from the digest commands and digests (the UX review's findings), end to end through the
 * signed driver, the real workers and the Slack stand-in. The scheduler role polls rarely here, so a test can
 * look at `digest status` before it has re-registered a changed schedule.
 */

let h: Harness;
const { nthDigest, ephemeralTo } = digestReads(() => h);

beforeAll(async () => {
  h = await startDigestHarness('e2e-digest-ux', 600_000);
});
afterAll(async () => {
  await h?.close();
});

describe('digest now without a kind', () => {
  it('asks which digest with a `digest now` example, not a subscription', async () => {
    const channel = 'CUXNOW';
    await bind(h, 'bright-dental', channel);
    await h.gateway('digest now', { user: MEMBER, channel });
    const reply = await ephemeralTo(MEMBER, channel, /Which digest\?/);
    expect(reply).toContain('For example: `/gateway digest now rankings`');
    expect(reply).not.toContain('and when');
    expect(reply).not.toContain('weekly mon');
  });
});

describe('a reviews digest with filters', () => {
  it('says the thread holds what the filters let through, not every new review, when some are left out', async () => {
    const channel = 'CUXREV';
    await bind(h, 'harbor-law', channel);
    await h.gateway('digest reviews daily 08:00 rating<=2', { user: ADMIN, channel });
    await h.gateway('digest now reviews', { user: MEMBER, channel });
    await nthDigest(channel, 1);
    h.sandbox.insertRows('harbor-law', 'reviews', [
      {
        id: 'rev_ux_1',
        author: 'One Star',
        rating: 1,
        text: 'Never again.',
        sentiment: 'negative',
        created_at: '2025-07-02T10:00:00.000Z',
      },
      {
        id: 'rev_ux_4',
        author: 'Four Star',
        rating: 4,
        text: 'Good.',
        sentiment: 'positive',
        created_at: '2025-07-02T11:00:00.000Z',
      },
      {
        id: 'rev_ux_5',
        author: 'Five Star',
        rating: 5,
        text: 'Great.',
        sentiment: 'positive',
        created_at: '2025-07-02T12:00:00.000Z',
      },
    ]);
    await h.gateway('digest now reviews', { user: MEMBER, channel });
    const digest = await nthDigest(channel, 2, 1);
    const summary = textOf(digest.summary);
    expect(summary).not.toContain('Every new review is in the thread');
    expect(summary).toContain('The thread lists the 1 new review the filters let through');
    expect(summary).toContain('2 other new reviews left out by the filters');
    const thread = digest.thread.map(textOf).join('\n');
    expect(thread).toContain('One Star');
    expect(thread).not.toContain('Four Star');

    // Without filters the thread does hold every new review, and says so.
    const open = 'CUXREVALL';
    await bind(h, 'harbor-law', open);
    await h.gateway('digest now reviews', { user: MEMBER, channel: open });
    await nthDigest(open, 1);
    h.sandbox.insertRows('harbor-law', 'reviews', [
      {
        id: 'rev_ux_6',
        author: 'Six',
        rating: 4,
        text: 'Fine.',
        sentiment: 'positive',
        created_at: '2025-07-02T13:00:00.000Z',
      },
    ]);
    await h.gateway('digest now reviews', { user: MEMBER, channel: open });
    const all = await nthDigest(open, 2, 1);
    expect(textOf(all.summary)).toContain('Every new review is in the thread.');
    expect(textOf(all.summary)).not.toContain('left out');
  });
});

describe('a rankings digest', () => {
  it('says in the thread the order its moves are in, and lists them in that order', async () => {
    const channel = 'CUXRANK';
    await bind(h, 'bright-dental', channel);
    await h.gateway('digest now rankings', { user: MEMBER, channel });
    await nthDigest(channel, 1);
    h.sandbox.advance('bright-dental');
    await h.gateway('digest now rankings', { user: MEMBER, channel });
    const digest = await nthDigest(channel, 2, 1);
    const moves = await h.slack.waitFor(
      () => h.slack.thread(channel, digest.summary.ts).find((m) => m.text.startsWith('Moves')),
      { what: 'the moves in the thread' },
    );
    // Not "biggest first": the moves are weighed by search volume, and the title says how.
    expect(moves.text).not.toContain('biggest first');
    expect(moves.text).toMatch(/^Moves, by change × √search volume, largest first \(\d+\)/);
    expect(textOf(digest.summary)).toContain('Biggest movers* (by change × √search volume)');
    const weights = [...textOf(moves).matchAll(/ (\d+) → (\d+) \([▲▼]\d+\)(?: · vol ([\d,]+))?/g)].map(
      ([, from, to, vol]) =>
        Math.abs(Number(from) - Number(to)) * Math.sqrt(Math.max(1, Number((vol ?? '0').replace(/,/g, '')))),
    );
    expect(weights.length).toBeGreaterThan(1);
    for (let i = 1; i < weights.length; i++) expect(weights[i]).toBeLessThanOrEqual(weights[i - 1] as number);
  });
});

describe('the first rankings digest', () => {
  it('says how its count of keywords relates to the count `/gateway keywords` shows', async () => {
    const channel = 'CUXBASE';
    await bind(h, 'harbor-law', channel);
    h.sandbox.insertRows('harbor-law', 'keywords', [
      {
        id: 'kw_ux_paused',
        keyword: 'ux paused keyword',
        position: 4,
        search_volume: 100,
        status: 'paused',
        tracked_at: '2025-06-30',
        created_at: '2025-06-30T00:00:00.000Z',
      },
      {
        id: 'kw_ux_unranked',
        keyword: 'ux unranked keyword',
        position: null,
        search_volume: 50,
        status: 'active',
        tracked_at: '2025-06-30',
        created_at: '2025-06-30T00:00:00.000Z',
      },
    ]);
    await h.gateway('keywords limit=1', { user: MEMBER, channel });
    const listing = await h.message((m) => m.text.includes('keywords') && / of [\d,]+/.test(m.text), channel);
    const total = Number(/ of ([\d,]+)/.exec(textOf(listing))?.[1]?.replace(/,/g, ''));
    expect(total).toBeGreaterThan(2);

    await h.gateway('digest now rankings', { user: MEMBER, channel });
    const baseline = textOf((await nthDigest(channel, 1)).summary);
    const m =
      /tracking ([\d,]+) keywords from now on \(of ([\d,]+): ([\d,]+) (?:is|are) paused, 1 has no position yet\)/.exec(
        baseline,
      );
    expect(m, baseline).not.toBeNull();
    const [tracked, all, paused] = [m?.[1], m?.[2], m?.[3]].map((n) => Number(n?.replace(/,/g, '')));
    expect(all).toBe(total);
    expect((tracked as number) + (paused as number) + 1).toBe(total);
  });
});

describe('subscribing again', () => {
  it('replaces the subscription whole and says what changed, what it dropped, and when nothing did', async () => {
    const channel = 'CUXRESUB';
    await bind(h, 'bright-dental', channel);
    const answer = async (command: string, match: RegExp) => {
      await h.gateway(command, { user: ADMIN, channel });
      return textOf(await h.message((m) => match.test(m.text), channel));
    };
    const first = await answer('digest rankings daily 08:00 min_change=5', /subscribed this channel/);
    expect(first).toContain('daily at 08:00 (UTC), filters `min_change=5`');

    const changed = await answer(
      'digest rankings daily 07:00 tz=America/Chicago',
      /changed the \*rankings\*/,
    );
    expect(changed).toContain(
      'was daily at 08:00 (UTC), filters `min_change=5`; now daily at 07:00 (America/Chicago), no filters; next ',
    );
    expect(changed).toContain('replaces the old one whole: name again the filters you want to keep');
    expect(changed).not.toContain('subscribed');
    const sub = await h.runtime.services.digests.get(channel, 'rankings');
    expect(sub?.filters).toEqual({});
    expect(sub?.tz).toBe('America/Chicago');

    const zone = await answer('digest rankings weekly sun', /changed the \*rankings\*.*weekly on Sunday/);
    expect(zone).toContain(
      'was daily at 07:00 (America/Chicago), no filters; now weekly on Sunday at 09:00 (UTC)',
    );
    expect(zone).toContain('name again the `tz=` you want to keep');

    const same = await answer('digest rankings weekly sun 09:00', /kept the \*rankings\*/);
    expect(same).toContain('as it was: weekly on Sunday at 09:00 (UTC), no filters');
  });
});

describe('the next run after a change', () => {
  it("is the new schedule's, in status and in the answer, before the scheduler has re-registered it", async () => {
    const channel = 'CUXNEXT';
    await bind(h, 'bright-dental', channel);
    const queue = h.runtime.services.digestQueue;
    const scheduler = h.runtime.scheduler;
    if (!scheduler) throw new Error('expected the scheduler role');
    const status = async () => {
      const before = h.slack.ephemerals(channel, MEMBER).length;
      await h.gateway('digest status', { user: MEMBER, channel });
      await h.slack.waitFor(() => h.slack.ephemerals(channel, MEMBER).length > before || undefined, {
        what: 'the status',
      });
      return textOf(h.slack.ephemerals(channel, MEMBER).at(-1) as FakeMessage);
    };
    const when = (ms: number, tz: string) => formatWhen(new Date(ms).toISOString(), tz);

    await h.gateway('digest reviews daily 08:00', { user: ADMIN, channel });
    await h.message((m) => m.text.includes('subscribed this channel to the *reviews*'), channel);
    await scheduler.sync();
    const old = await queue.nextRun(channel, 'reviews');
    expect(old).toBeGreaterThan(Date.now());
    expect(await status()).toContain(`next ${when(old as number, 'UTC')}`);

    // Changed: the job scheduler still runs daily 08:00 until the scheduler role next syncs.
    const changes: Array<
      [string, { kind: 'weekly'; day: 'sun'; at: string } | { kind: 'daily'; at: string }, string]
    > = [
      ['digest reviews weekly sun', { kind: 'weekly', day: 'sun', at: '09:00' }, 'UTC'],
      ['digest reviews daily 07:00 tz=America/Chicago', { kind: 'daily', at: '07:00' }, 'America/Chicago'],
    ];
    for (const [command, schedule, tz] of changes) {
      const before = h.slack.messages(channel).length;
      await h.gateway(command, { user: ADMIN, channel });
      const answer = await h.slack.waitFor(
        () =>
          h.slack
            .messages(channel)
            .slice(before)
            .find((m) => m.text.includes('changed the *reviews*')),
        { what: 'the change answer' },
      );
      const next = nextRunAt(schedule, tz, Date.now()) as number;
      expect(next).not.toBe(old);
      expect(textOf(answer)).toContain(`next ${when(next, tz)}`);
      const shown = await status();
      expect(shown).toContain(`next ${when(next, tz)}`);
      expect(shown).not.toContain(when(old as number, tz));
      // Once the scheduler has re-registered it, BullMQ's own next run is the one status showed.
      await scheduler.sync();
      expect(await queue.nextRun(channel, 'reviews')).toBe(next);
    }
  });
});
