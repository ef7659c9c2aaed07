/**
 * Charts through the whole bot (Bolt over HTTP, the workers, the sandbox gateway, the Slack stand-in): a
 * command's chart in the channel, a weekly reviews or rankings digest's chart in its thread (drawn from the
 * digest's own scan), and `get_chart` over MCP with the image and the numbers behind it.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../../src/local/fake-slack/index.js';
import { ADMIN, bind, CHANNEL, MEMBER, mintMcpToken, textOf } from '../helpers/bot-harness.js';
import { digestReads, startDigestHarness } from '../helpers/digest-harness.js';

type Harness = Awaited<ReturnType<typeof startDigestHarness>>;
type Answer = {
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  content: Array<{ type: string; text?: string; data?: string; mimeType?: string }>;
};

const DIGEST_CHANNEL = 'CCHARTDIG';
const RANKINGS_CHANNEL = 'CCHARTRNK';
let h: Harness;
const { nthDigest } = digestReads(() => h);

beforeAll(async () => {
  h = await startDigestHarness('e2e-charts', 60_000);
  await bind(h, 'harbor-law');
}, 30_000);
afterAll(async () => {
  await h?.close();
});

const decode = (bytes: Buffer | undefined) => PNG.sync.read(bytes ?? Buffer.alloc(0));

describe('charts', () => {
  it('posts `/gateway chart rankings` in the channel as an uploaded image with its line of figures', async () => {
    const before = h.slack.messages(CHANNEL).length;
    await h.gateway('chart rankings "personal injury lawyer boston"');
    const posted = await h.slack.waitFor(
      () =>
        h.slack
          .messages(CHANNEL)
          .slice(before)
          .find((m) => m.files?.length),
      { what: 'the chart message', timeoutMs: 20_000 },
    );
    expect(posted.text).toContain('Rankings of 1 keyword for Harbor Law Group');
    const png = decode(h.slack.file(posted.files?.[0]?.id ?? '')?.bytes);
    expect([png.width, png.height]).toEqual([2400, 1200]);
  });

  it('attaches the reviews chart to a weekly reviews digest, in its thread, after the text', async () => {
    await bind(h, 'harbor-law', DIGEST_CHANNEL);
    await h.gateway('digest reviews weekly mon 09:00', { user: ADMIN, channel: DIGEST_CHANNEL });
    await h.gateway('digest now reviews', { user: MEMBER, channel: DIGEST_CHANNEL });
    const baseline = await nthDigest(DIGEST_CHANNEL, 1);
    // A baseline is text alone.
    expect(h.slack.thread(DIGEST_CHANNEL, baseline.summary.ts)).toEqual([]);
    h.sandbox.advance('harbor-law');
    const reviewReads = h.sandbox.requests().filter((r) => r.resource === 'reviews').length;
    await h.gateway('digest now reviews', { user: MEMBER, channel: DIGEST_CHANNEL });
    const digest = await nthDigest(DIGEST_CHANNEL, 2, 1);
    const chart: FakeMessage = await h.slack.waitFor(
      () => h.slack.thread(DIGEST_CHANNEL, digest.summary.ts).find((m) => m.files?.length),
      { what: 'the chart in the digest thread', timeoutMs: 20_000 },
    );
    const thread = h.slack.thread(DIGEST_CHANNEL, digest.summary.ts);
    // The text is as it was; the chart comes last.
    expect(thread.at(-1)).toBe(chart);
    expect(thread.slice(0, -1).every((m) => !m.files)).toBe(true);
    expect(textOf(digest.summary)).toContain('Reviews for Harbor Law Group');
    expect(chart.text).toMatch(
      /^:star: Reviews of Harbor Law Group, \d{4}-\d{2} to \d{4}-\d{2} · \d+ reviews?, average \d\.\d★/,
    );
    expect(chart.files?.[0]?.alt_txt).toMatch(
      /^Bar chart of \d+ reviews? per month by star rating for Harbor Law Group/,
    );
    const png = decode(h.slack.file(chart.files?.[0]?.id ?? '')?.bytes);
    expect([png.width, png.height]).toEqual([2400, 1200]);
    // Drawn from the digest's own scan: the digest's one walk of the reviews, no second read for the chart.
    const walks = h.sandbox.requests().filter((r) => r.resource === 'reviews').length;
    expect(walks - reviewReads).toBe(1);
  });

  it('attaches the rankings trend chart to a weekly rankings digest, from its own scan of the keywords', async () => {
    await bind(h, 'harbor-law', RANKINGS_CHANNEL);
    await h.gateway('digest rankings weekly mon 09:00', { user: ADMIN, channel: RANKINGS_CHANNEL });
    await h.gateway('digest now rankings', { user: MEMBER, channel: RANKINGS_CHANNEL });
    const baseline = await nthDigest(RANKINGS_CHANNEL, 1);
    expect(h.slack.thread(RANKINGS_CHANNEL, baseline.summary.ts)).toEqual([]);
    h.sandbox.advance('harbor-law');
    const keywordReads = h.sandbox.requests().filter((r) => r.resource === 'keywords').length;
    await h.gateway('digest now rankings', { user: MEMBER, channel: RANKINGS_CHANNEL });
    const digest = await nthDigest(RANKINGS_CHANNEL, 2, 1);
    const chart: FakeMessage = await h.slack.waitFor(
      () => h.slack.thread(RANKINGS_CHANNEL, digest.summary.ts).find((m) => m.files?.length),
      { what: 'the rankings chart in the digest thread', timeoutMs: 20_000 },
    );
    const thread = h.slack.thread(RANKINGS_CHANNEL, digest.summary.ts);
    expect(thread.at(-1)).toBe(chart);
    expect(thread.slice(0, -1).every((m) => !m.files)).toBe(true);
    expect(chart.text).toMatch(
      /^:chart_with_upwards_trend: Rankings week by week, the last \d+ weeks · average #\d+\.\d \(was #\d+\.\d\), \d+ in the top 3, \d+ in the top 10 · movers: /,
    );
    expect(chart.files?.[0]?.title).toBe('Rankings of Harbor Law Group, week by week');
    const png = decode(h.slack.file(chart.files?.[0]?.id ?? '')?.bytes);
    expect([png.width, png.height]).toEqual([2400, 1200]);
    // The weeks were summed by the digest's one walk of the keywords: no second read for the chart.
    const walks = h.sandbox.requests().filter((r) => r.resource === 'keywords').length;
    expect(walks - keywordReads).toBe(1);
  });

  it('`get_chart` answers an assistant with the PNG as image content and the numbers as structured content', async () => {
    h.slack.simulate.joinChannel(CHANNEL, MEMBER);
    const client = new Client({ name: 'e2e-charts', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${h.runtime.port}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${await mintMcpToken(h, MEMBER)}` } },
      }),
    );
    try {
      const tools = await client.listTools();
      expect(tools.tools.find((t) => t.name === 'get_chart')?.annotations?.readOnlyHint).toBe(true);
      const answer = (await client.callTool({
        name: 'get_chart',
        arguments: {
          client_id: 'harbor-law',
          kind: 'rankings',
          keywords: ['Personal Injury Lawyer Boston', 'nope'],
        },
      })) as Answer;
      expect(answer.isError).toBeFalsy();
      const image = answer.content.find((c) => c.type === 'image');
      expect(image?.mimeType).toBe('image/png');
      const png = decode(Buffer.from(image?.data ?? '', 'base64'));
      expect([png.width, png.height]).toEqual([2400, 1200]);
      const numbers = answer.structuredContent as {
        keywords: Array<{
          keyword: string;
          last: number;
          points: Array<{ date: string; position: number | null }>;
        }>;
        not_tracked: string[];
        alt_text: string;
      };
      expect(numbers.keywords.map((k) => k.keyword)).toEqual(['personal injury lawyer boston']);
      expect(numbers.keywords[0]?.points.length).toBeGreaterThan(1);
      expect(numbers.not_tracked).toEqual(['nope']);
      expect(numbers.alt_text).toContain('personal injury lawyer boston: #');
      // The same reach as every read tool: a client none of the person's channels is bound to does not exist.
      const refused = (await client.callTool({
        name: 'get_chart',
        arguments: { client_id: 'bright-dental', kind: 'reviews' },
      })) as Answer;
      expect(refused.isError).toBe(true);
      expect(refused.content[0]?.text).toContain('No client `bright-dental` is reachable');
    } finally {
      await client.close().catch(() => {});
    }
  });
});
