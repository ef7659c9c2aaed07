/**
 * Slack's per-channel pace: the stand-in, paced as Slack is (about one message a second a channel, a short
 * burst, 429 with Retry-After beyond), and the bot's worker keeping that pace itself (SLACK_POST_INTERVAL) and
 * waiting out a 429's Retry-After before it posts again. A rankings digest and its thread replies into one channel.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, bind, MEMBER } from '../helpers/bot-harness.js';
import { digestReads, startDigestHarness } from '../helpers/digest-harness.js';

type Harness = Awaited<ReturnType<typeof startDigestHarness>>;
let h: Harness;
const { nthDigest } = digestReads(() => h);
const CHANNEL = 'CPACE';

beforeAll(async () => {
  h = await startDigestHarness('e2e-slack-pace', 60_000, {
    DIGEST_NOW_COOLDOWN: '1ms',
    SLACK_POST_INTERVAL: '1s',
  });
  h.slack.simulate.pace({ perSecond: 1, burst: 2 });
  await bind(h, 'harbor-law', CHANNEL);
  await h.gateway('digest rankings daily 09:00', { user: ADMIN, channel: CHANNEL });
}, 30_000);
afterAll(async () => {
  await h?.close();
});

const posts = () =>
  h.slack.calls.filter((c) => c.method === 'chat.postMessage' && c.args.channel === CHANNEL);

describe('posting at Slack’s pace', () => {
  it('the stand-in answers 429 with Retry-After beyond one message a second in a channel', async () => {
    const send = () =>
      fetch(`${h.slack.apiUrl}chat.postMessage`, {
        method: 'POST',
        headers: { authorization: `Bearer ${h.slack.botToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ channel: 'CPACEPROBE', text: 'hello' }),
      });
    const answers = [await send(), await send(), await send()];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 429]);
    expect(answers[2]?.headers.get('retry-after')).toBe('1');
  });

  it('a digest and its thread go out one message a second, with no 429', async () => {
    await h.gateway('digest now rankings', { user: MEMBER, channel: CHANNEL });
    await nthDigest(CHANNEL, 1);
    h.sandbox.advance('harbor-law');
    const before = posts().length;
    await h.gateway('digest now rankings', { user: MEMBER, channel: CHANNEL });
    await nthDigest(CHANNEL, 2, 1);
    const sent = posts().slice(before);
    expect(sent.length).toBeGreaterThanOrEqual(2);
    expect(sent.filter((c) => c.error === 'ratelimited')).toEqual([]);
    const gaps = sent.slice(1).map((c, i) => c.at - (sent[i]?.at ?? 0));
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(900);
  }, 40_000);

  it('a 429 is waited out for its Retry-After, then the message is posted', async () => {
    h.sandbox.advance('harbor-law');
    h.slack.simulate.ratelimit('chat.postMessage', 1, 2);
    const before = posts().length;
    await h.gateway('digest now rankings', { user: MEMBER, channel: CHANNEL });
    await nthDigest(CHANNEL, 3, 1);
    const sent = posts().slice(before);
    const refused = sent.findIndex((c) => c.error === 'ratelimited');
    expect(refused).toBeGreaterThanOrEqual(0);
    const next = sent[refused + 1];
    expect(next?.ok).toBe(true);
    expect((next?.at ?? 0) - (sent[refused]?.at ?? 0)).toBeGreaterThanOrEqual(1_900);
  }, 40_000);
});
