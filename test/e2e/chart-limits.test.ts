/**
 * What an assistant's charts may cost, through the whole bot (Bolt over HTTP, the MCP server, the sandbox gateway,
 * the Slack stand-in, Redis): the cache keys a chart on what it draws, stays within CHART_CACHE_MB, and a person
 * past CHART_RENDERS new charts is told so in words while charts already drawn still come.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN,
  bind,
  CHANNEL,
  type Harness,
  MEMBER,
  mintMcpToken,
  startHarness,
  textOf,
} from '../helpers/bot-harness.js';
import { testRedis } from '../helpers/redis.js';

type Answer = { isError?: boolean; content: Array<{ type: string; text?: string }> };

const RENDERS = 8;
const CAP_BYTES = 1_048_576;
let h: Harness;
let redis: ReturnType<typeof testRedis>['redis'];
let client: Client;

beforeAll(async () => {
  h = await startHarness('e2e-chart-limits', { CHART_RENDERS: `${RENDERS}/1h`, CHART_CACHE_MB: '1' });
  redis = testRedis(h.prefix).redis;
  await bind(h, 'harbor-law');
  h.slack.simulate.joinChannel(CHANNEL, MEMBER);
  client = new Client({ name: 'e2e-chart-limits', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${h.runtime.port}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${await mintMcpToken(h, MEMBER)}` } },
    }),
  );
}, 30_000);
afterAll(async () => {
  await client?.close().catch(() => {});
  await redis?.quit();
  await h?.close();
});

/** The cached charts in Redis: their keys and the bytes of their images and figures. */
async function cached(): Promise<{ keys: string[]; bytes: number }> {
  const keys = await redis.keys(`${h.prefix}:chart:*`);
  let bytes = 0;
  for (const key of keys) bytes += (await redis.hstrlen(key, 'png')) + (await redis.hstrlen(key, 'meta'));
  return { keys, bytes };
}

const chart = (args: Record<string, unknown>) =>
  client.callTool({ name: 'get_chart', arguments: { client_id: 'harbor-law', ...args } }) as Promise<Answer>;

describe('chart limits', () => {
  it('keeps one cached chart for six get_chart calls that differ only in untracked keywords', async () => {
    for (let i = 0; i < 6; i++) {
      const answer = await chart({
        kind: 'rankings',
        keywords: ['personal injury lawyer boston', `no such keyword ${i} ${'x'.repeat(250)}`],
      });
      expect(answer.isError).toBeFalsy();
    }
    expect((await cached()).keys).toHaveLength(1);
  });

  it('keeps the cache under CHART_CACHE_MB however many different charts are drawn', async () => {
    let drawn = 0;
    for (let day = 1; day <= RENDERS; day++) {
      const before = h.slack.messages(CHANNEL).length;
      await h.gateway(`chart rankings from=2026-09-0${day}`, { user: ADMIN });
      const posted = await h.slack.waitFor(
        () =>
          h.slack
            .messages(CHANNEL)
            .slice(before)
            .find((m) => m.files?.length),
        { what: 'the chart', timeoutMs: 20_000 },
      );
      drawn += h.slack.file(posted.files?.[0]?.id ?? '')?.bytes?.length ?? 0;
    }
    // More was drawn than the cache may hold; what it holds stays under its cap, and its count says the same.
    expect(drawn).toBeGreaterThan(CAP_BYTES);
    const { keys, bytes } = await cached();
    expect(bytes).toBeLessThanOrEqual(CAP_BYTES);
    expect(keys.length).toBeLessThan(RENDERS + 1);
    expect(Number(await redis.get(`${h.prefix}:chart-bytes`))).toBeLessThanOrEqual(CAP_BYTES);
  });

  it('tells a person past CHART_RENDERS new charts so, in words, and still sends a chart already drawn', async () => {
    // The first test drew one chart for this person; seven more reach the cap.
    for (let i = 1; i < RENDERS; i++) {
      const answer = await chart({ kind: 'reviews', from: `2026-0${i}-01` });
      expect(answer.isError).toBeFalsy();
    }
    const refused = await chart({ kind: 'reviews', from: '2026-08-01' });
    expect(refused.isError).toBe(true);
    expect(refused.content[0]?.text).toContain(`You have drawn ${RENDERS} new charts in an hour`);
    expect(refused.content[0]?.text).toContain('A chart already drawn today still comes at once');
    const again = await chart({ kind: 'reviews', from: '2026-07-01' });
    expect(again.isError).toBeFalsy();
    // In Slack too: the same person's command is answered to them alone, and nothing is uploaded.
    const uploads = h.slack.calls.filter((c) => c.method === 'files.getUploadURLExternal').length;
    await h.gateway('chart reviews from=2025-12-01', { user: MEMBER });
    await h.ephemeral((m) => textOf(m).includes(`You have drawn ${RENDERS} new charts`), { user: MEMBER });
    expect(h.slack.calls.filter((c) => c.method === 'files.getUploadURLExternal')).toHaveLength(uploads);
  });
});
