import { describe, expect, it } from 'vitest';
import { parseDigestArgs } from '../../src/commands/digest-args.js';
import { tokenize } from '../../src/commands/tokenizer.js';
import { describeFilters, parseFilters } from '../../src/digests/filters.js';
import { diffRankings, RankingScan } from '../../src/digests/rankings.js';
import { diffReviews, toNewReview } from '../../src/digests/reviews.js';
import { periodOf, repeatOptions } from '../../src/digests/schedule.js';
import { UserError } from '../../src/requests/user-error.js';
import { buildRankingsDigest, sparkline } from '../../src/views/digest-rankings.js';
import { buildReviewsDigest } from '../../src/views/digest-reviews.js';
import { MAX_BLOCKS_MESSAGE, MAX_SECTION_TEXT } from '../../src/views/limits.js';

const args = (text: string) => parseDigestArgs(tokenize(text));

describe('digest arguments', () => {
  it('reads schedules, times, days, zones and filters', () => {
    expect(args('rankings weekly mon 08:30 min_change=3 top=10 keyword~plumb tz=Europe/Berlin')).toEqual({
      action: 'subscribe',
      kind: 'rankings',
      schedule: { kind: 'weekly', day: 'mon', at: '08:30' },
      tz: 'Europe/Berlin',
      filters: { minChange: 3, top: 10, keyword: 'plumb' },
    });
    expect(args('reviews daily sentiment=negative rating<=3')).toMatchObject({
      schedule: { kind: 'daily', at: '09:00' },
      filters: { sentiment: 'negative', maxRating: 3 },
    });
    expect(args('reviews daily 7:05 rating<3')).toMatchObject({
      schedule: { at: '07:05' },
      filters: { maxRating: 2 },
    });
    expect(args('reviews off')).toEqual({ action: 'off', kind: 'reviews' });
    expect(args('now rankings')).toEqual({ action: 'now', kind: 'rankings' });
    expect(args('')).toEqual({ action: 'status', ignored: [] });
    expect(args('status')).toEqual({ action: 'status', ignored: [] });
  });

  it('refuses what it cannot read, with an example', () => {
    for (const bad of [
      'reviews',
      'reviews sometimes',
      'rankings weekly',
      'rankings daily 9pm',
      'reviews daily top=3',
      'now',
    ]) {
      let error: unknown;
      try {
        args(bad);
      } catch (e) {
        error = e;
      }
      expect(error, bad).toBeInstanceOf(UserError);
      expect((error as UserError).options.hint, bad).toMatch(/^For example: `\/gateway digest/);
    }
  });

  it('describes filters as they are typed', () => {
    expect(describeFilters(parseFilters('rankings', [{ name: 'top', op: '=', value: '3' }]))).toBe('top=3');
  });
});

describe('digest schedules', () => {
  it('are cron patterns in the zone, or a fixed interval', () => {
    expect(repeatOptions({ kind: 'weekly', day: 'fri', at: '17:30' }, 'Europe/Berlin')).toEqual({
      pattern: '30 17 * * 5',
      tz: 'Europe/Berlin',
    });
    expect(repeatOptions({ kind: 'every', ms: 500 }, 'UTC')).toEqual({ every: 500 });
  });

  it('puts two schedulings of one interval a few ms apart in one period', () => {
    const every = { kind: 'every', ms: 1_000 } as const;
    expect(periodOf(every, 10_000)).toBe(periodOf(every, 10_004));
    expect(periodOf(every, 10_000)).not.toBe(periodOf(every, 11_000));
  });
});

describe('rankings', () => {
  const row = (keyword: string, position: number, at: string, extra: Record<string, unknown> = {}) => ({
    keyword,
    position,
    tracked_at: at,
    search_volume: 100,
    ...extra,
  });

  it('takes the newest observation as now, whatever the order rows arrive in', () => {
    const scan = new RankingScan();
    scan.add(row('a', 5, '2025-06-03'));
    scan.add(row('a', 9, '2025-06-01'));
    scan.add(row('a', 2, '2025-06-02'));
    const a = scan.keywords.get('a')!;
    expect(a.position).toBe(5);
    expect(a.recent).toEqual([9, 2, 5]);
    expect(a.best).toBe(2);
  });

  it('sums the weeks as it scans: a keyword counts once a week, at its last position of that week', () => {
    const scan = new RankingScan();
    // Mon 2025-06-02 and Mon 2025-06-09 start the two weeks.
    for (const r of [
      row('a', 20, '2025-06-02'),
      row('b', 2, '2025-06-02'),
      row('a', 8, '2025-06-04'),
      row('b', 4, '2025-06-05'),
      row('a', 1, '2025-06-10'),
      row('c', 50, '2025-06-10', { status: 'paused' }),
    ])
      scan.add(r);
    expect(scan.weeks(12)).toEqual([
      { week: '2025-06-02', averagePosition: 6, top3: 0, top10: 2, ranked: 2 },
      // b has no row that week; c is paused.
      { week: '2025-06-09', averagePosition: 1, top3: 1, top10: 1, ranked: 1 },
    ]);
    // Asking does not count the open week twice.
    expect(scan.weeks(1)).toEqual([{ week: '2025-06-09', averagePosition: 1, top3: 1, top10: 1, ranked: 1 }]);
  });

  it('reports moves, crossings, new bests, new and untracked keywords, and counts the unchanged', () => {
    const scan = new RankingScan();
    for (const r of [
      row('climb', 40, '2025-06-01'),
      row('climb', 2, '2025-06-02'),
      row('fall', 8, '2025-06-01'),
      row('fall', 14, '2025-06-02'),
      row('still', 20, '2025-06-02'),
      row('fresh', 30, '2025-06-02'),
      row('paused', 12, '2025-06-02', { status: 'paused' }),
    ])
      scan.add(r);
    const diff = diffRankings(
      scan.keywords,
      new Map([
        ['climb', 40],
        ['fall', 8],
        ['still', 20],
        ['paused', 12],
        ['gone', 3],
      ]),
    );
    expect(diff.moved.map((m) => [m.keyword, m.change, m.newBest, m.crossings])).toEqual([
      ['climb', 38, true, ['entered top 3', 'entered top 10']],
    ]);
    expect(diff.fellOut.map((m) => m.keyword)).toEqual(['fall']);
    expect(diff.added.map((k) => k.keyword)).toEqual(['fresh']);
    expect(diff.dropped.map((k) => k.keyword)).toEqual(['gone', 'paused']);
    expect(diff.unchanged).toBe(1);
  });

  it('weights movers by search volume and filters by change, top N and keyword', () => {
    const scan = new RankingScan();
    scan.add(row('big volume', 15, '2025-06-02', { search_volume: 10_000 }));
    scan.add(row('small volume', 40, '2025-06-02', { search_volume: 10 }));
    scan.add(row('tiny move', 51, '2025-06-02'));
    const previous = new Map([
      ['big volume', 20],
      ['small volume', 60],
      ['tiny move', 50],
    ]);
    expect(diffRankings(scan.keywords, previous).moved.map((m) => m.keyword)).toEqual([
      'big volume',
      'small volume',
      'tiny move',
    ]);
    expect(diffRankings(scan.keywords, previous, { minChange: 3 }).moved).toHaveLength(2);
    expect(diffRankings(scan.keywords, previous, { top: 20 }).moved.map((m) => m.keyword)).toEqual([
      'big volume',
    ]);
    expect(diffRankings(scan.keywords, previous, { keyword: 'small' }).moved.map((m) => m.keyword)).toEqual([
      'small volume',
    ]);
  });

  it('draws a sparkline where a better position is a taller bar', () => {
    expect(sparkline([10, 5, 1])).toBe('▁▃▇');
    expect(sparkline([7])).toBe('');
  });
});

describe('digests fit Slack whatever the size', () => {
  const within = (message: { blocks: unknown[] }) => {
    expect(message.blocks.length).toBeLessThanOrEqual(MAX_BLOCKS_MESSAGE);
    for (const block of message.blocks as Array<{ text?: { text: string } }>) {
      expect(block.text?.text.length ?? 0).toBeLessThanOrEqual(MAX_SECTION_TEXT);
    }
  };

  it('20,000 moved keywords and 5,000 new reviews become a summary and capped thread messages', () => {
    const scan = new RankingScan();
    const previous = new Map<string, number>();
    for (let i = 0; i < 20_000; i++) {
      const keyword = `keyword ${i} ${'x'.repeat(i % 80)} <!channel>`;
      scan.add({ keyword, position: (i % 100) + 1, tracked_at: '2025-06-02', search_volume: i });
      previous.set(keyword, ((i + 7) % 100) + 1);
    }
    const post = buildRankingsDigest({
      clientLabel: 'Acme',
      since: '2025-06-01',
      tz: 'UTC',
      diff: diffRankings(scan.keywords, previous),
      filters: '',
    });
    within(post.summary);
    for (const detail of post.details) within(detail);
    expect(JSON.stringify(post)).not.toContain('<!channel>');
    expect(JSON.stringify(post.details)).toMatch(/…and [\d,]+ more/);

    const fresh = Array.from({ length: 5_000 }, (_, i) =>
      toNewReview({
        id: `r${i}`,
        author: 'A'.repeat(300),
        rating: (i % 5) + 1,
        text: 'y'.repeat(2_000),
        sentiment: 'neutral',
      }),
    );
    const reviews = buildReviewsDigest({
      clientLabel: 'Acme',
      since: '',
      tz: 'UTC',
      diff: diffReviews(fresh),
      filters: '',
    });
    within(reviews.summary);
    for (const detail of reviews.details) within(detail);
  });
});
