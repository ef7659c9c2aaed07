import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeView } from '../../src/local/fake-slack/index.js';
import { bind, CHANNEL, type Harness, MEMBER, startHarness, textOf } from '../helpers/bot-harness.js';
import { TEST_REDIS_URL } from '../helpers/redis.js';

/**
 * One audit request reads who asks and which client the channel holds once per Slack request, and the job's
 * worker reads neither again (the job carries them). Counted on the real bot: the stand-in's users.info and
 * usergroups.users.list calls (the person check and the members rule; the bot's caches last 1 ms here, so a
 * second check would ask Slack again), and every Redis command on the channel's binding (MONITOR).
 */

const GROUP = 'SAUDITORS';
let h: Harness;
let monitor: Socket;
let bindingKey: string;
const bindingCommands: string[] = [];

/**
 * Redis's MONITOR on a socket of its own, line by line. Not ioredis's monitor(): it parses the lines that come in
 * the same packet as MONITOR's own OK before it marks the connection as monitoring, and on a busy server (other
 * test files beside this one) it then fails with "Command queue state error".
 */
async function startMonitor(onLine: (line: string) => void): Promise<Socket> {
  const { hostname, port } = new URL(TEST_REDIS_URL);
  const socket = connect(Number(port || 6379), hostname);
  let rest = '';
  let started: () => void = () => {};
  const ok = new Promise<void>((resolve) => {
    started = resolve;
  });
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    const lines = (rest + chunk).split('\r\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      if (line === '+OK') started();
      else onLine(line);
    }
  });
  socket.on('error', () => {});
  socket.write('MONITOR\r\n');
  await ok;
  return socket;
}

beforeAll(async () => {
  h = await startHarness('e2e-audit-reads', { GATEWAY_MEMBERS: GROUP }, { userCacheMs: 1 });
  h.slack.simulate.setUserGroup(GROUP, [MEMBER]);
  await bind(h, 'harbor-law');
  bindingKey = `${h.prefix}:binding:${CHANNEL}`;
  // A command line quotes each argument: `+<time> [0 <client>] "hget" "<key>" …`.
  monitor = await startMonitor((line) => {
    if (line.includes(`"${bindingKey}"`)) bindingCommands.push(line);
  });
});
afterAll(async () => {
  monitor?.destroy();
  await h?.close();
});

interface Reads {
  binding: number;
  person: number;
  members: number;
}

/** What has been read so far: binding commands, and the stand-in's lookups of MEMBER and of the group. */
function readsSoFar(): Reads {
  const calls = h.slack.calls;
  return {
    binding: bindingCommands.length,
    person: calls.filter((c) => c.method === 'users.info' && c.args.user === MEMBER).length,
    members: calls.filter((c) => c.method === 'usergroups.users.list' && c.args.usergroup === GROUP).length,
  };
}

const since = (before: Reads): Reads => {
  const now = readsSoFar();
  return {
    binding: now.binding - before.binding,
    person: now.person - before.person,
    members: now.members - before.members,
  };
};

/** The job's status message for `url`, once its result is in the thread and the job has had time to end. */
async function resultOf(url: string): Promise<void> {
  const { thread } = await h.settled(
    (m) => textOf(m).includes(url) && /done|:white_check_mark:/.test(textOf(m)),
  );
  expect(thread.length).toBeGreaterThan(0);
  // The worker's own ending (ledger, claims) comes after the thread reply: it must read nothing either.
  await new Promise((r) => setTimeout(r, 300));
}

/** `/gateway audit` with no page: its form, once open with its inputs. */
async function openForm(): Promise<FakeView> {
  const views = h.slack.views(MEMBER).length;
  await h.gateway('audit');
  return h.slack.waitFor(
    () =>
      h.slack
        .views(MEMBER)
        .slice(views)
        .find((v) => v.view.blocks.some((b: { type: string }) => b.type === 'input')),
    { what: 'the audit form' },
  );
}

describe('one audit request', () => {
  it('typed whole: the command reads the person, the members rule and the binding once; the worker none', async () => {
    const url = 'https://harbor-law.example/typed';
    const before = readsSoFar();
    await h.gateway(`audit ${url}`);
    await resultOf(url);
    expect(since(before)).toEqual({ binding: 1, person: 1, members: 1 });
  });

  it('through its form: once when the form opens, once at submission (a rebind in between must refuse); the worker none', async () => {
    const url = 'https://harbor-law.example/form';
    const before = readsSoFar();
    const form = await openForm();
    const opened = since(before);
    expect(opened).toEqual({ binding: 1, person: 1, members: 1 });
    const submitted = readsSoFar();
    await h.driver.submit(form, { url }, { user: MEMBER });
    await resultOf(url);
    expect(since(submitted)).toEqual({ binding: 1, person: 1, members: 1 });
  });

  it('refuses, at submission, a form opened before the channel was bound to another client', async () => {
    const url = 'https://harbor-law.example/rebound';
    const form = await openForm();
    await bind(h, 'acme-plumbing');
    const posts = h.posts('seo_audit').length;
    await h.driver.submit(form, { url }, { user: MEMBER });
    const refusal = await h.slack.waitFor(
      () =>
        h.slack.messages(CHANNEL).find((m) => textOf(m).includes('now bound to another client')) ??
        h.slack.ephemerals(CHANNEL, MEMBER).find((m) => textOf(m).includes('now bound to another client')),
      { what: 'the refusal' },
    );
    expect(textOf(refusal)).toContain('Nothing was run');
    await new Promise((r) => setTimeout(r, 300));
    expect(h.posts('seo_audit').length).toBe(posts);
  });
});
