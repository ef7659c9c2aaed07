import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../../src/local/fake-slack/index.js';
import { ADMIN, bind, type Harness, MEMBER, textOf } from '../helpers/bot-harness.js';
import { digestReads, startDigestHarness } from '../helpers/digest-harness.js';

/**
 * Channel digests end to end: commands through the signed driver, runs on the real digests
 * queue and workers, the sandbox's data changing between runs (`advance`, inserted rows), and what the
 * local Slack stand-in received.
 */

let h: Harness;
const { digestsIn, nthDigest, ephemeralTo } = digestReads(() => h);

beforeAll(async () => {
  h = await startDigestHarness('e2e-digests', 100);
});
afterAll(async () => {
  await h?.close();
});

const runOf = (m: FakeMessage) => (m.metadata as { event_payload: { run: string } }).event_payload.run;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('digest commands', () => {
  it('lets only admins subscribe, and explains bad schedules and filters with an example', async () => {
    const channel = 'CDIGCMD';
    await bind(h, 'bright-dental', channel);
    await h.gateway('digest reviews daily 09:00', { user: MEMBER, channel });
    expect(await ephemeralTo(MEMBER, channel, /Only admins/)).toContain('subscribe a channel to digests');
    expect(await h.runtime.services.digests.get(channel, 'reviews')).toBeUndefined();

    const cases: Array<[string, RegExp]> = [
      ['digest reviews hourly', /`hourly` is not a schedule/],
      ['digest rankings weekly 09:00', /`weekly` needs a day/],
      ['digest rankings daily 25:00', /`25:00` is not a time/],
      ['digest reviews daily rating<=9', /`rating` takes a whole number from 1 to 5/],
      ['digest rankings daily min_change=3 sentiment=negative', /is not a rankings filter/],
      ['digest reviews daily tz=Mars/Olympus', /is not a time zone/],
      ['digest weekly', /Which digest\?/],
    ];
    for (const [command, error] of cases) {
      await h.gateway(command, { user: ADMIN, channel });
      const reply = await ephemeralTo(ADMIN, channel, error);
      expect(reply).toContain('For example');
      expect(reply).toContain('/gateway digest');
    }
    expect(await h.runtime.services.digests.channelSubscriptions(channel)).toEqual([]);
  });

  it('subscribes, shows the subscriptions in status with their filters and next run, and turns off', async () => {
    const channel = 'CDIGSTATUS';
    await bind(h, 'bright-dental', channel);
    await h.gateway('digest rankings weekly mon 08:30 min_change=3 top=10 keyword~dentist tz=Europe/Berlin', {
      user: ADMIN,
      channel,
    });
    await h.message((m) => m.text.includes('subscribed this channel to the *rankings* digest'), channel);
    await h.gateway('digest reviews daily sentiment=negative', { user: ADMIN, channel });
    await h.message((m) => m.text.includes('subscribed this channel to the *reviews* digest'), channel);

    // The scheduler role upserts the job schedulers; status shows their next runs once it has.
    let status = '';
    for (let i = 0; i < 50 && !/next Mon/.test(status); i++) {
      await h.gateway('digest status', { user: MEMBER, channel });
      status = await ephemeralTo(MEMBER, channel, /Digests in this channel/);
      await sleep(100);
    }
    expect(status).toContain('weekly on Monday at 08:30 (Europe/Berlin)');
    expect(status).toContain('min_change=3 top=10 keyword~dentist');
    expect(status).toContain('daily at 09:00 (UTC)');
    expect(status).toContain('sentiment=negative');
    expect(status).toMatch(/next Mon \d+ \w+, 08:30 CE/);

    await h.gateway('status', { user: MEMBER, channel });
    const overall = await ephemeralTo(MEMBER, channel, /\*Client:\*/);
    expect(overall).toContain('*Rankings* weekly on Monday at 08:30');

    await h.gateway('digest rankings off', { user: MEMBER, channel });
    expect(await ephemeralTo(MEMBER, channel, /Only admins/)).toContain('turn digests off');
    await h.gateway('digest rankings off', { user: ADMIN, channel });
    await h.message((m) => m.text.includes('turned off the *rankings* digest'), channel);
    const queue = h.runtime.services.digestQueue;
    for (let i = 0; i < 50 && (await queue.nextRun(channel, 'rankings')); i++) await sleep(100);
    expect(await queue.nextRun(channel, 'rankings')).toBeUndefined();
    expect(await queue.nextRun(channel, 'reviews')).toBeGreaterThan(Date.now());
    await h.gateway('digest status', { user: ADMIN, channel });
    const after = await ephemeralTo(ADMIN, channel, /Digests in this channel: 1|\*Reviews\*/);
    expect(after).not.toContain('*Rankings*');
  });
});

describe('reviews digests', () => {
  it('records a baseline first, then answers "nothing new" to the requester alone', async () => {
    const channel = 'CDIGBASE';
    await bind(h, 'bright-dental', channel);
    await h.gateway('digest now reviews', { user: MEMBER, channel });
    const first = await nthDigest(channel, 1);
    expect(first.all).toContain('tracking 30 reviews from now on');
    expect(h.slack.thread(channel, first.summary.ts)).toEqual([]);

    await h.gateway('digest now reviews', { user: MEMBER, channel });
    expect(await ephemeralTo(MEMBER, channel, /Nothing new since/)).toContain('no new reviews');
    await sleep(200);
    expect(digestsIn(channel)).toHaveLength(1);
  });

  it('lists new reviews worst first with the summary in the channel and the detail in the thread, late arrivals included, filters applied', async () => {
    const channel = 'CDIGREV';
    await bind(h, 'harbor-law', channel);
    await h.gateway('digest reviews daily 07:00 rating<=3', { user: ADMIN, channel });
    await h.gateway('digest now reviews', { user: MEMBER, channel });
    await nthDigest(channel, 1);

    h.sandbox.advance('harbor-law');
    // A review dated a month before the baseline that only now reached the gateway: new all the same.
    h.sandbox.insertRows('harbor-law', 'reviews', [
      {
        id: 'rev_late_1',
        author: 'Late <!channel> Larry',
        rating: 2,
        text: 'Slow to call back & <https://evil.example|click>',
        sentiment: 'negative',
        created_at: '2025-05-30T10:00:00.000Z',
      },
    ]);
    await h.gateway('digest now reviews', { user: MEMBER, channel });
    const digest = await nthDigest(channel, 2, 1);
    const summary = JSON.stringify(digest.summary.blocks);
    // What needs a person leads: the 1- and 2-star reviews, whatever the filters.
    expect(summary.indexOf('1- or 2-star')).toBeLessThan(summary.indexOf('Reviews for'));
    expect(summary).toContain('3 new 1- or 2-star reviews to answer');
    expect(summary).toContain('left out by the filters');
    expect(summary).toMatch(/average \d\.\d★/);
    const thread = digest.thread.map(textOf).join('\n');
    expect(thread).toContain('Late &lt;!channel&gt; Larry');
    expect(thread).not.toContain('<!channel>');
    expect(thread).not.toContain('<https://evil.example');
    // Lowest rating first: the 1-star before the 2-stars.
    expect(thread.indexOf('★☆☆☆☆')).toBeGreaterThan(-1);
    expect(thread.indexOf('★☆☆☆☆')).toBeLessThan(thread.indexOf('★★☆☆☆'));
    // rating<=3: the 4- and 5-star reviews of the day are counted as left out, not listed.
    expect(thread).not.toContain('★★★★');

    await h.gateway('digest now reviews', { user: MEMBER, channel });
    await ephemeralTo(MEMBER, channel, /Nothing new since/);
  });
});

describe('rankings digests', () => {
  it('reports moves, crossings, best ever, sparklines, new and no-longer-tracked keywords, and counts the rest', async () => {
    const channel = 'CDIGRANK';
    await bind(h, 'bright-dental', channel);
    await h.gateway('digest now rankings', { user: MEMBER, channel });
    expect((await nthDigest(channel, 1)).all).toMatch(/tracking \d+ keywords from now on/);

    // Two days: the first puts a keyword at #1, the second has it fall out of the top 10.
    h.sandbox.advance('bright-dental');
    await h.gateway('digest now rankings', { user: MEMBER, channel });
    expect(textOf((await nthDigest(channel, 2, 1)).summary)).toMatch(/→ 1 \(▲\d+\)/);
    h.sandbox.advance('bright-dental');
    await h.gateway('digest now rankings', { user: MEMBER, channel });
    const digest = await nthDigest(channel, 3, 4);
    const summary = textOf(digest.summary);
    expect(summary).toContain('fell out of the top 10');
    expect(summary).toMatch(/▲ \d+ up · ▼ \d+ down · 1 new · 1 no longer tracked · \d+ unchanged/);
    expect(summary).toContain('Biggest movers');
    const thread = digest.thread.map(textOf).join('\n');
    expect(thread).toMatch(/→ 1 \(▲\d+\)/);
    expect(thread).toContain(':trophy: new best');
    expect(thread).toContain('entered top 3');
    expect(thread).toContain('left top 10');
    expect(thread).toMatch(/`[▁▂▃▅▇]{3,}`/);
    expect(thread).toContain('New keywords');
    expect(thread).toContain('No longer tracked');
    const metrics = await h.runtime.services.metrics.registry.metrics();
    // The baseline and the first digest at least (the third may still be finishing its thread).
    expect(metrics).toMatch(/gateway_bot_digests_posted_total\{kind="rankings"\} [2-9]/);
  });

  it('applies the subscription filters to what is listed; a fall out of the top 10 always shows', async () => {
    const channel = 'CDIGRFILT';
    await bind(h, 'bright-dental', channel);
    await h.gateway('digest rankings daily keyword~whitening min_change=1', { user: ADMIN, channel });
    await h.gateway('digest now rankings', { user: MEMBER, channel });
    await nthDigest(channel, 1);
    h.sandbox.advance('bright-dental');
    await h.gateway('digest now rankings', { user: MEMBER, channel });
    const digest = await nthDigest(channel, 2);
    await sleep(300);
    const listed = [digest.summary, ...h.slack.thread(channel, digest.summary.ts)]
      .map(textOf)
      .join('\n')
      .match(/\*[^*]+\* \d+ → \d+/g);
    const fellOut = /fell out of the top 10\*\\n\*([^*]+)\*/.exec(textOf(digest.summary))?.[1];
    for (const line of listed ?? []) {
      if (fellOut && line.includes(fellOut)) continue;
      expect(line).toContain('whitening');
    }
    expect(textOf(digest.summary)).toContain('keyword~whitening');
  });
});

/** A reviews subscription on a fast `every` schedule (the command offers only daily and weekly). */
function subscribeEvery(channel: string, ms: number): Promise<void> {
  return h.runtime.services.digests.save({
    channel,
    kind: 'reviews',
    schedule: { kind: 'every', ms },
    tz: 'UTC',
    filters: {},
    createdBy: ADMIN,
    createdAt: new Date().toISOString(),
  });
}

describe('scheduled digests', () => {
  it('posts a baseline, then nothing while nothing changes, then the changes once', async () => {
    const channel = 'CDIGSCHED';
    await bind(h, 'bright-dental', channel);
    await subscribeEvery(channel, 400);
    await nthDigest(channel, 1);
    await sleep(1_500);
    expect(digestsIn(channel)).toHaveLength(1);
    h.sandbox.advance('bright-dental');
    const second = await nthDigest(channel, 2, 1);
    expect(textOf(second.summary)).toContain('new review');
    await sleep(1_200);
    expect(digestsIn(channel)).toHaveLength(2);
    expect(new Set(digestsIn(channel).map(runOf)).size).toBe(2);
    await h.runtime.services.digests.remove(channel, 'reviews');
  });

  it.each([
    ['the bot leaves the channel', 'CDIGLEFT', 'the bot was removed from the channel'],
    ['the channel is archived', 'CDIGARCH', 'the channel was archived'],
    ['the channel is unbound', 'CDIGUNBOUND', 'the channel is no longer bound to a client'],
  ])('stops when %s, and status says why', async (what, channel, reason) => {
    await bind(h, 'bright-dental', channel);
    await subscribeEvery(channel, 300);
    if (what.includes('leaves')) h.slack.simulate.removeBotFrom(channel);
    else if (what.includes('archived')) h.slack.simulate.archive(channel);
    else await h.runtime.services.bindings.remove(channel);
    let sub = await h.runtime.services.digests.get(channel, 'reviews');
    for (let i = 0; i < 100 && !sub?.stopped; i++) {
      await sleep(100);
      sub = await h.runtime.services.digests.get(channel, 'reviews');
    }
    expect(sub?.stopped?.reason).toBe(reason);
    for (let i = 0; i < 50 && (await h.runtime.services.digestQueue.nextRun(channel, 'reviews')); i++)
      await sleep(100);
    expect(await h.runtime.services.digestQueue.nextRun(channel, 'reviews')).toBeUndefined();
    expect(digestsIn(channel)).toHaveLength(0);
    await h.gateway('digest status', { user: MEMBER, channel });
    expect(await ephemeralTo(MEMBER, channel, /stopped/)).toContain(reason);
  });

  it('a digest built while Slack is down is posted once Slack answers again: not lost, not doubled', async () => {
    const channel = 'CDIGSLACK';
    await bind(h, 'bright-dental', channel);
    await h.gateway('digest now reviews', { user: MEMBER, channel });
    await nthDigest(channel, 1);
    h.sandbox.advance('bright-dental');
    const store = h.runtime.services.digests;
    h.slack.simulate.outage(['chat.postMessage'], 'error');
    try {
      await subscribeEvery(channel, 400);
      // The mark advanced with the digest to post: every later run resumes that digest, none diffs again.
      const building = async () =>
        (await store.pending(channel, 'reviews'))?.summary.text.includes('new review');
      for (let i = 0; i < 100 && !(await building()); i++) await sleep(100);
      expect(await store.pending(channel, 'reviews')).toMatchObject({ repliesPosted: 0 });
      await sleep(1_000);
    } finally {
      h.slack.simulate.restore();
    }
    const digest = await nthDigest(channel, 2, 1);
    expect(textOf(digest.summary)).toContain('3 new reviews');
    await sleep(1_500);
    expect(digestsIn(channel)).toHaveLength(2);
    expect(h.slack.thread(channel, digest.summary.ts)).toHaveLength(1);
    expect(await store.pending(channel, 'reviews')).toBeUndefined();
    await store.remove(channel, 'reviews');
  });

  it('retries a run that fails and tells the channel once, not every period', async () => {
    const channel = 'CDIGFAIL';
    await bind(h, 'harbor-law', channel);
    await h.gateway('digest now reviews', { user: MEMBER, channel });
    await nthDigest(channel, 1);
    h.sandbox.failNext('500', { method: 'GET', resource: 'reviews', count: 1_000 });
    await subscribeEvery(channel, 300);
    const told = () => h.slack.messages(channel).filter((m) => m.text.includes('could not be built'));
    await h.slack.waitFor(() => told()[0], { what: 'the failure notice', timeoutMs: 15_000 });
    const failedReads = () =>
      h.sandbox.requests().filter((r) => r.resource === 'reviews' && r.status === 500);
    const before = failedReads().length;
    await h.slack.waitFor(() => failedReads().length >= before + 12 || undefined, {
      what: 'more failed periods',
      timeoutMs: 15_000,
    });
    expect(told()).toHaveLength(1);
    const sub = await h.runtime.services.digests.get(channel, 'reviews');
    expect(sub?.failure?.told).toBe(true);
    await h.gateway('digest status', { user: MEMBER, channel });
    expect(await ephemeralTo(MEMBER, channel, /last run failed/)).toContain('gateway_server_error');
    await h.runtime.services.digests.remove(channel, 'reviews');
    h.sandbox.reset();
  });
});
