/**
 * The read tools' cursor key when Redis loses it: two web processes have read it; Redis forgets it; a third
 * process (a restart, a new replica behind the load balancer) makes another. Cursors from every process page on
 * every other, instead of failing wherever the process still holds the key it read first.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SlackDriver } from '../../src/local/driver.js';
import type { FakeMessage } from '../../src/local/fake-slack/index.js';
import type { Runtime } from '../../src/runtime.js';
import { type RoleFleet, startRoleFleet } from '../helpers/role-fleet.js';

const ADMIN = 'UADMIN';
const CHANNEL = 'CSEO';
const CLIENT = 'bright-dental';

const textOf = (m: FakeMessage) => `${m.text}\n${JSON.stringify(m.blocks ?? [])}`;

interface Page {
  isError?: boolean;
  content: { text: string }[];
  structuredContent?: { next_cursor?: string | null; rows?: unknown[] };
}

describe('cursors when Redis loses the cursor key', () => {
  let fleet: RoleFleet;
  let token: string;
  const clients: Client[] = [];

  const connect = async (web: Runtime) => {
    const client = new Client({ name: 'cursor-key', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${web.port}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    clients.push(client);
    return client;
  };
  const page = async (client: Client, cursor?: string) =>
    (await client.callTool({
      name: 'list_keywords',
      arguments: { client_id: CLIENT, limit: 1, ...(cursor ? { cursor } : {}) },
    })) as Page;

  beforeAll(async () => {
    fleet = await startRoleFleet('e2e-mcp-cursor-key', { sandboxLatencyMs: 0 });
    const web = await fleet.start('web');
    const driver = new SlackDriver({
      eventsUrl: `http://127.0.0.1:${web.port}/slack/events`,
      signingSecret: fleet.signingSecret,
      slack: fleet.slack,
    });
    fleet.slack.simulate.joinChannel(CHANNEL, ADMIN);
    await driver.command(`use ${CLIENT}`, { user: ADMIN, channel: CHANNEL });
    await driver.command('mcp token', { user: ADMIN, channel: CHANNEL });
    const answer = await fleet.slack.waitFor(
      () => fleet.slack.ephemerals(CHANNEL, ADMIN).find((m) => /gwb_/.test(textOf(m))),
      { what: 'the token' },
    );
    token = /gwb_[A-Za-z0-9_-]{20,}/.exec(textOf(answer))?.[0] ?? '';
  }, 60_000);

  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => {});
    await fleet?.close();
  });

  it('pages across processes after a new key was made', async () => {
    const firstWeb = await fleet.start('web');
    const first = await connect(firstWeb);
    // The first process reads (and holds) the key.
    const before = (await page(first)).structuredContent?.next_cursor;
    expect(typeof before).toBe('string');
    expect((await page(first, before as string)).isError).toBeFalsy();
    await firstWeb.services.redis.del(`${fleet.prefix}:mcp:cursor-key`);
    // A process started now makes another key.
    const second = await connect(await fleet.start('web'));
    const fromSecond = (await page(second)).structuredContent?.next_cursor as string;
    const onFirst = await page(first, fromSecond);
    expect(onFirst.isError, onFirst.content[0]?.text).toBeFalsy();
    const fromFirst = (await page(first)).structuredContent?.next_cursor as string;
    const onSecond = await page(second, fromFirst);
    expect(onSecond.isError, onSecond.content[0]?.text).toBeFalsy();
  });
});
