import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { markerOf, type Sent } from '../fleet/audit.js';
import { FLEET_ADMIN, FLEET_MEMBER, type Fleet } from '../fleet/fleet.js';
import { FLEET_CLIENT, mixedCommand, sendAll } from '../fleet/mixed.js';
import type { PrivateRedis } from '../fleet/private-redis.js';
import { CHANNEL, FAULT_TUNING, type FaultRow, runRow } from './row.js';

/**
 * Assistant tool calls mixed with Slack commands, over two web processes, while the gateway fails (5xx,
 * timeouts, dropped answers, status:"error"): every tool call that queued a job is audited as a command's job
 * is (its status message carries a marker: lost, duplicate records, ended silently), and no deploy or email
 * send may reach the gateway, since nobody approves in this row.
 */

const SITE = 'https://bright-dental.example';
const textOf = (m: { text: string; blocks?: unknown[] }) => `${m.text}\n${JSON.stringify(m.blocks ?? [])}`;

type ToolCall = { name: string; args: Record<string, unknown>; action?: string };

function toolCall(i: number, marker: string, postId: string): ToolCall {
  const client_id = FLEET_CLIENT;
  switch (i % 10) {
    case 0:
      return { name: 'list_keywords', args: { client_id, limit: 5 } };
    case 1:
      return { name: 'list_audits', args: { client_id, limit: 5 } };
    case 2:
      return { name: 'list_articles', args: { client_id, limit: 5 } };
    case 3:
      return { name: 'list_clients', args: {} };
    case 4:
      return {
        name: 'generate_topical_map',
        args: { client_id, topic: `topic ${marker}` },
        action: 'generate_topical_map',
      };
    case 5:
      return {
        name: 'optimize_page',
        args: { client_id, url: `${SITE}/${marker}` },
        action: 'optimize_page',
      };
    case 6:
      return { name: 'index_url', args: { client_id, url: `${SITE}/i/${marker}` }, action: 'index_url' };
    case 7:
      return {
        name: 'generate_outreach_email',
        args: { client_id, prospect: `https://prospect.example/${marker}` },
        action: 'generate_outreach_email',
      };
    case 8:
      return { name: 'deploy_article', args: { client_id, article_id: postId } };
    default:
      return {
        name: 'send_prospect_email',
        args: { client_id, to: 'editor@example.com', subject: `Hello ${marker}`, html: `<p>${marker}</p>` },
      };
  }
}

/** Mints an assistant token as the fleet's member with `/gateway mcp token`, as a person would. */
export async function mint(fleet: Fleet): Promise<string> {
  const before = fleet.slack.ephemerals(CHANNEL, FLEET_MEMBER).length;
  await fleet.driver().command('mcp token', { user: FLEET_MEMBER, channel: CHANNEL });
  const answer = await fleet.slack.waitFor(
    () =>
      fleet.slack
        .ephemerals(CHANNEL, FLEET_MEMBER)
        .slice(before)
        .find((m) => /gwb_/.test(textOf(m))),
    { what: 'the assistant token', timeoutMs: 15_000 },
  );
  const token = /gwb_[A-Za-z0-9_-]{20,}/.exec(textOf(answer))?.[0];
  if (!token) throw new Error('mcp row: no token in the answer');
  return token;
}

export function toolCallsWithCommands(redis: PrivateRedis, calls: number): Promise<FaultRow> {
  const guardedPosts = (fleet: Fleet) =>
    fleet.sandbox
      .requests()
      .filter(
        (r) => r.method === 'POST' && (r.action === 'deploy_blog' || r.action === 'send_prospect_email'),
      ).length;
  let answered = 0;
  let pending = 0;
  return runRow(
    'assistant tool calls and commands, gateway faults',
    `${calls} tool calls + ${Math.ceil(calls / 4)} commands, 2 web processes`,
    {
      name: 'mcp',
      redisUrl: redis.url,
      web: 2,
      workers: 2,
      // The gateway row's worker tuning: production backoffs would stretch a fault run of this size past its hour.
      tuning: FAULT_TUNING,
      env: { GATEWAY_ACTION_TIMEOUT: '1s', LOG_LEVEL: 'info', MCP_RATE: '1000000/60s' },
    },
    async (fleet) => {
      fleet.slack.simulate.joinChannel(CHANNEL, FLEET_MEMBER);
      fleet.slack.simulate.joinChannel(CHANNEL, FLEET_ADMIN);
      const token = await mint(fleet);
      const clients = await Promise.all(
        fleet.web.map(async (web) => {
          const client = new Client({ name: 'faults', version: '1.0.0' });
          await client.connect(
            new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${web.port}/mcp`), {
              requestInit: { headers: { authorization: `Bearer ${token}` } },
            }),
          );
          return client;
        }),
      );
      const postId = String(fleet.sandbox.records(FLEET_CLIENT, 'blogs')[0]?.id);
      fleet.sandbox.setKnobs({ errorRate: 0.15, timeoutRate: 0.1, dropRate: 0.05, statusErrorRate: 0.1 });
      const sent: Sent[] = [];
      let next = 0;
      const lane = async () => {
        while (next < calls) {
          const i = next++;
          const marker = markerOf(i, 'mt');
          const call = toolCall(i, marker, postId);
          const client = clients[i % clients.length] as Client;
          let text = '';
          let failed: string | undefined;
          try {
            const result = (await client.callTool({ name: call.name, arguments: call.args })) as {
              structuredContent?: { status?: string };
              content?: { text?: string }[];
            };
            text = JSON.stringify(result.structuredContent ?? result.content ?? {});
            answered++;
            if (result.structuredContent?.status === 'pending_approval') pending++;
          } catch (error) {
            failed = String(error);
          }
          // A tool call that queued a job is audited as a command's job: by the marker its status message carries.
          const queued = /"status":"queued"/.test(text);
          sent.push({
            marker,
            text: `${call.name} ${JSON.stringify(call.args)}`,
            channel: CHANNEL,
            user: FLEET_MEMBER,
            ...(call.action && queued ? { action: call.action } : {}),
            triggerId: '',
            responseUrl: '',
            status: failed ? 0 : 200,
            ackBody: text,
            ackMs: 0,
            ...(failed ? { failed } : {}),
          });
        }
      };
      const [commands] = await Promise.all([
        sendAll(fleet, Math.ceil(calls / 4), (i) => mixedCommand(i, 'fm'), { channel: CHANNEL, inFlight: 4 }),
        Promise.all(Array.from({ length: 8 }, lane)),
      ]);
      await Promise.all(clients.map((c) => c.close().catch(() => {})));
      return {
        sent: [...sent, ...commands],
        note: () =>
          `${answered}/${calls} tool calls answered, ${pending} approval cards asked for, ${guardedPosts(fleet)} deploy/send POSTs without an Approve`,
        missed: () =>
          guardedPosts(fleet) === 0 ? [] : [`${guardedPosts(fleet)} deploys or sends ran without an Approve`],
      };
    },
    120_000 + calls * 200,
  );
}
