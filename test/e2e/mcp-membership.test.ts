/**
 * Reach follows membership, on every web process: two web runtimes on one Redis (each its own cache of who is
 * in which channel, 5 minutes by default), the Slack stand-in and the sandbox. Slack's member_left_channel and
 * member_joined_channel reach one process; the other answers by them at once. An action tool asks Slack afresh
 * even when no event came.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SlackDriver } from '../../src/local/driver.js';
import type { FakeMessage } from '../../src/local/fake-slack/index.js';
import type { Runtime } from '../../src/runtime.js';
import { type RoleFleet, startRoleFleet } from '../helpers/role-fleet.js';

const ADMIN = 'UADMIN';
const MEMBER = 'UMEMBER';
const CHANNEL = 'CSEO';
const CLIENT = 'bright-dental';

const textOf = (m: FakeMessage) => `${m.text}\n${JSON.stringify(m.blocks ?? [])}`;

describe('reach follows membership across two web processes', () => {
  let fleet: RoleFleet;
  let webs: Runtime[];
  let driver: SlackDriver;
  const clients: Client[] = [];

  const connect = async (token: string, web: Runtime) => {
    const client = new Client({ name: 'membership', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${web.port}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    clients.push(client);
    return client;
  };
  const call = async (client: Client, name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as {
      isError?: boolean;
      content: { text: string }[];
      structuredContent?: { status?: string };
    };
  const audits = (client: Client) => call(client, 'list_audits', { client_id: CLIENT, limit: 1 });

  beforeAll(async () => {
    fleet = await startRoleFleet('e2e-mcp-membership', { sandboxLatencyMs: 0 });
    webs = [await fleet.start('web'), await fleet.start('web')];
    driver = new SlackDriver({
      eventsUrl: `http://127.0.0.1:${webs[0]?.port}/slack/events`,
      signingSecret: fleet.signingSecret,
      slack: fleet.slack,
    });
    for (const user of [ADMIN, MEMBER]) fleet.slack.simulate.joinChannel(CHANNEL, user);
    await driver.command(`use ${CLIENT}`, { user: ADMIN, channel: CHANNEL });
    await fleet.slack.waitFor(
      () => fleet.slack.messages(CHANNEL).find((m) => m.text.includes('now bound to')),
      { what: 'the binding' },
    );
  }, 60_000);

  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => {});
    await fleet?.close();
  });

  async function mint(): Promise<string> {
    await driver.command('mcp token', { user: MEMBER, channel: CHANNEL });
    const answer = await fleet.slack.waitFor(
      () => fleet.slack.ephemerals(CHANNEL, MEMBER).find((m) => /gwb_/.test(textOf(m))),
      { what: 'the token' },
    );
    return /gwb_[A-Za-z0-9_-]{20,}/.exec(textOf(answer))?.[0] ?? '';
  }

  it('drops a person’s reach on every process when Slack says they left, and gives it back when they rejoin', async () => {
    const token = await mint();
    const [first, second] = [
      await connect(token, webs[0] as Runtime),
      await connect(token, webs[1] as Runtime),
    ];
    // Both processes have read (and cached) the person's channels.
    expect((await audits(first)).isError).toBeFalsy();
    expect((await audits(second)).isError).toBeFalsy();

    fleet.slack.simulate.leaveChannel(CHANNEL, MEMBER);
    // The event reaches the first process only.
    expect((await driver.memberEvent('member_left_channel', { user: MEMBER, channel: CHANNEL })).status).toBe(
      200,
    );
    for (const client of [second, first]) {
      const refused = await audits(client);
      expect(refused.isError).toBe(true);
      expect(refused.content[0]?.text).toMatch(/No client `bright-dental`/);
    }
    const acted = await call(second, 'run_seo_audit', {
      client_id: CLIENT,
      url: 'https://brightdental.example/',
    });
    expect(acted.isError).toBe(true);

    fleet.slack.simulate.joinChannel(CHANNEL, MEMBER);
    await driver.memberEvent('member_joined_channel', { user: MEMBER, channel: CHANNEL });
    // Both processes had cached "in no bound channel"; both answer again at once.
    expect((await audits(second)).isError).toBeFalsy();
    expect((await audits(first)).isError).toBeFalsy();
  });

  it('checks membership afresh before an action tool, even when no event came', async () => {
    const token = await mint();
    const client = await connect(token, webs[1] as Runtime);
    expect((await audits(client)).isError).toBeFalsy();
    // Left, and Slack's event lost: the read may answer from the cache for a while; the action may not.
    fleet.slack.simulate.leaveChannel(CHANNEL, MEMBER);
    const acted = await call(client, 'run_seo_audit', {
      client_id: CLIENT,
      url: 'https://brightdental.example/a',
    });
    expect(acted.isError).toBe(true);
    expect(acted.content[0]?.text).toMatch(/No client `bright-dental`/);
    expect(
      fleet.slack
        .messages(CHANNEL)
        .filter((m) => /seo_audit|audit/i.test(m.text) && /queued/i.test(textOf(m))),
    ).toEqual([]);
    fleet.slack.simulate.joinChannel(CHANNEL, MEMBER);
  });
});
