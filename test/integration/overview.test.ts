import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeSlack, startFakeSlack } from '../../src/local/fake-slack/index.js';
import { silentLogger } from '../../src/logger.js';
import { type Overview, overviewReader } from '../../src/overview/index.js';
import { type Runtime, startRuntime } from '../../src/runtime.js';
import { HomeMarks } from '../../src/store/index.js';
import { ADMIN, CHANNEL, MEMBER, testConfig } from '../helpers/bot-harness.js';
import { testRedis, uniquePrefix } from '../helpers/redis.js';

// The Home read model as a use case: the core services over real Redis, the Slack stand-in answering
// users.info and users.conversations, no Bolt and no Home surface.
const prefix = uniquePrefix('overview');
let slack: FakeSlack;
let runtime: Runtime;
let read: (user: string) => Promise<Overview>;
const { cleanup } = testRedis(prefix);

beforeAll(async () => {
  slack = await startFakeSlack();
  runtime = await startRuntime(testConfig(slack, prefix), silentLogger(), { roles: [] });
  const { services } = runtime;
  slack.simulate.joinChannel(CHANNEL, MEMBER);
  await services.bindings.set({
    channel: CHANNEL,
    clientId: 'acme-plumbing',
    clientLabel: 'Acme Plumbing',
    boundBy: ADMIN,
    boundAt: new Date().toISOString(),
  });
  await services.signoffs.add(CHANNEL, {
    userId: 'UEXTERNAL',
    teamId: 'T0PARTNER',
    clientId: 'acme-plumbing',
    addedBy: ADMIN,
    addedAt: Date.now(),
  });
  read = overviewReader(services, new HomeMarks(services.redis, prefix)).read;
});

afterAll(async () => {
  await runtime?.stop();
  await slack?.close();
  await cleanup();
});

const person = (o: Overview) => {
  if (o.kind !== 'person') throw new Error(`expected a person's overview, got ${o.kind}`);
  return o.data;
};

describe('overviewReader', () => {
  it("lists a member's bound channels and nothing of an admin's", async () => {
    const o = await read(MEMBER);
    expect(o).toMatchObject({ kind: 'person', approver: false });
    const data = person(o);
    expect(data.channels.rows.map((c) => [c.channel, c.clientId])).toEqual([[CHANNEL, 'acme-plumbing']]);
    expect(data.jobs).toEqual({ rows: [], total: 0 });
    expect(data.waiting).toEqual({ records: [], total: 0 });
    expect(data.admin).toBeUndefined();
  });

  it("gives an admin every binding, the queue's depth, the admins and the approvers", async () => {
    const data = person(await read(ADMIN));
    expect(data.admin?.bindings.map((b) => b.channel)).toEqual([CHANNEL]);
    expect(data.admin?.queue).toEqual({ waiting: 0, active: 0, delayed: 0, failed: 0 });
    expect(data.admin?.admins).toContain(ADMIN);
  });

  it("points a client's named approver at the channel where they sign off, and a guest at nothing", async () => {
    expect(await read('UEXTERNAL')).toEqual({ kind: 'not-a-person', signoffChannels: [CHANNEL] });
    expect(await read('UGUEST')).toEqual({ kind: 'not-a-person', signoffChannels: [] });
  });

  it('reads nothing from the gateway', async () => {
    const before = await gatewayCalls();
    await read(ADMIN);
    await read(MEMBER);
    expect(await gatewayCalls()).toBe(before);
  });
});

async function gatewayCalls(): Promise<number> {
  const metric = await runtime.services.metrics.registry.getSingleMetricAsString(
    'gateway_bot_gateway_requests_total',
  );
  return [...metric.matchAll(/ (\d+)$/gm)].reduce((n, m) => n + Number(m[1]), 0);
}
