import { Redis } from 'ioredis';
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
let monitor: Redis;
let bindingKey: string;
const bindingCommands: string[][] = [];

beforeAll(async () => {
  h = await startHarness('e2e-audit-reads', { GATEWAY_MEMBERS: GROUP }, { userCacheMs: 1 });
  h.slack.simulate.setUserGroup(GROUP, [MEMBER]);
  await bind(h, 'harbor-law');
  bindingKey = `${h.prefix}:binding:${CHANNEL}`;
  monitor = await new Redis(TEST_REDIS_URL).monitor();
  monitor.on('monitor', (_time: string, args: string[]) => {
    if (args.includes(bindingKey)) bindingCommands.push(args);
  });
});
afterAll(async () => {
  monitor?.disconnect();
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
