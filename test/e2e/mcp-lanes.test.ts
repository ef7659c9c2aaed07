/**
 * The assistant tools' own lane and reads: a per-process cap on requests in flight (503 with Retry-After),
 * gateway reads capped per person and per process, a page budget per call, and ROLE=mcp serving the assistant
 * tools as a process of their own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import {
  ADMIN,
  bind,
  CHANNEL,
  type Harness,
  MEMBER,
  mintMcpToken,
  startHarness,
} from '../helpers/bot-harness.js';
import { mcpPost, toolCallBody } from '../helpers/mcp-post.js';

const CLIENT = 'bright-dental';
const LATENCY_MS = 400;

/** The most GETs of `resource` the sandbox received within any `windowMs` (reads in flight together). */
function mostWithin(h: Harness, resource: string, since: number, windowMs: number): number {
  const times = h.sandbox
    .requests()
    .filter((r) => r.method === 'GET' && r.resource === resource && Date.parse(r.at) >= since)
    .map((r) => Date.parse(r.at))
    .sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while ((times[i] as number) - (times[j] as number) >= windowMs) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

describe('assistant tools: lane and reads', () => {
  let h: Harness;
  let endpoint: string;
  const audits = (token: string, id: number) =>
    mcpPost(endpoint, token, toolCallBody(id, 'list_audits', { client_id: CLIENT, limit: 1 }));

  beforeAll(async () => {
    h = await startHarness('e2e-mcp-lanes', {
      MCP_RATE: '100000/60s',
      MCP_MAX_IN_FLIGHT: '4',
      MCP_GATEWAY_READS: '3',
      MCP_GATEWAY_READS_PER_PERSON: '2',
      MCP_CALL_PAGES: '2',
    });
    endpoint = `http://127.0.0.1:${h.runtime.port}/mcp`;
    h.slack.simulate.joinChannel(CHANNEL, MEMBER);
    await bind(h, CLIENT);
  }, 30_000);

  afterAll(async () => {
    await h?.close();
  });

  it('answers 503 with Retry-After past the requests one process holds, and serves the rest', async () => {
    const token = await mintMcpToken(h, MEMBER);
    h.sandbox.setKnobs({ latencyMs: LATENCY_MS });
    try {
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => audits(token, i)));
      const busy = answers.filter((r) => r.status === 503);
      expect(busy.length).toBeGreaterThanOrEqual(6);
      expect(answers.filter((r) => r.status === 200)).toHaveLength(10 - busy.length);
      expect(busy[0]?.headers.get('retry-after')).toBe('1');
      expect(await busy[0]?.text()).toMatch(/busy; retry in a moment/);
    } finally {
      h.sandbox.setKnobs({ latencyMs: 0 });
    }
  });

  it('reads the gateway at most two at a time for one person and three for the process', async () => {
    const [member, admin] = [await mintMcpToken(h, MEMBER), await mintMcpToken(h, ADMIN)];
    h.sandbox.setKnobs({ latencyMs: LATENCY_MS });
    try {
      const since = Date.now();
      // Four at a time: all are held (MCP_MAX_IN_FLIGHT), none is refused.
      const mine = await Promise.all([0, 1, 2, 3].map((i) => audits(member, i)));
      expect(mine.map((r) => r.status)).toEqual([200, 200, 200, 200]);
      expect(mostWithin(h, 'seo_reports', since, LATENCY_MS / 2)).toBeLessThanOrEqual(2);
      const both = Date.now();
      const mixed = await Promise.all([
        audits(member, 5),
        audits(member, 6),
        audits(admin, 7),
        audits(admin, 8),
      ]);
      expect(mixed.map((r) => r.status)).toEqual([200, 200, 200, 200]);
      expect(mostWithin(h, 'seo_reports', both, LATENCY_MS / 2)).toBe(3);
    } finally {
      h.sandbox.setKnobs({ latencyMs: 0 });
    }
  });

  it('stops a filtered scan at the call’s page budget and hands out a cursor to go on', async () => {
    const rows = Array.from({ length: 3_000 }, (_, i) => ({
      id: `kw-bulk-${i}`,
      keyword: `bulk keyword ${i}`,
      position: 30,
      tracked_at: '2026-01-01T00:00:00Z',
      created_at: '2026-01-01T00:00:00Z',
    }));
    h.sandbox.insertRows(CLIENT, 'keywords', rows);
    const token = await mintMcpToken(h, ADMIN);
    const before = h.sandbox.requests().filter((r) => r.resource === 'keywords').length;
    const answer = await mcpPost(
      endpoint,
      token,
      toolCallBody(1, 'list_rankings', { client_id: CLIENT, keyword: 'no such keyword at all' }),
    );
    const text = await answer.text();
    const reads = h.sandbox.requests().filter((r) => r.resource === 'keywords').length - before;
    expect(reads).toBe(2);
    const result = JSON.parse(/\{"result".*\}|\{"jsonrpc".*\}/.exec(text)?.[0] ?? '{}') as {
      result?: { structuredContent?: { rows: unknown[]; next_cursor: string | null } };
    };
    expect(result.result?.structuredContent?.rows).toEqual([]);
    expect(result.result?.structuredContent?.next_cursor).toEqual(expect.any(String));
  });
});

describe('ROLE=mcp: the assistant tools as a process of their own', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness('e2e-mcp-role', {}, { roles: ['mcp'] });
  }, 30_000);

  afterAll(async () => {
    await h?.close();
  });

  it('serves /mcp and health, and no Slack endpoint', async () => {
    const base = `http://127.0.0.1:${h.runtime.port}`;
    const { secret } = await h.runtime.services.assistantTokens.mint({
      user: ADMIN,
      team: h.slack.teamId,
      scope: 'read',
      ttlMs: 60_000,
    });
    const listed = await mcpPost(
      `${base}/mcp`,
      secret,
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    );
    expect(listed.status).toBe(200);
    expect(await listed.text()).toContain('list_rankings');
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/slack/events`, { method: 'POST', body: '{}' })).status).toBe(404);
    expect(h.runtime.bot).toBeUndefined();
  });

  it('is a ROLE of its own, and the in-process sandbox stays for ROLE=all', () => {
    const env = { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's', GATEWAY_API_KEY: 'k' };
    expect(loadConfig({ ...env, ROLE: 'mcp', GATEWAY_BASE_URL: 'https://gateway.example' }).role).toBe('mcp');
    expect(() => loadConfig({ ...env, ROLE: 'mcp', GATEWAY_BASE_URL: 'sandbox' })).toThrow(/ROLE=all/);
  });
});
