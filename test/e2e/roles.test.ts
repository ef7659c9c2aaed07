import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SlackDriver } from '../../src/local/driver.js';
import type { FakeSlack } from '../../src/local/fake-slack/index.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { textOf } from '../helpers/bot-harness.js';
import { type RoleFleet, startRoleFleet } from '../helpers/role-fleet.js';

let fleet: RoleFleet;
let slack: FakeSlack;
let sandbox: Sandbox;
const start = (role: string) => fleet.start(role, { worker: { reconcileGraceMs: 50, backoffMs: 50 } });

beforeAll(async () => {
  fleet = await startRoleFleet('e2e-roles', {
    env: { GATEWAY_ACTION_RATE: '1000/1s' },
    sandboxLatencyMs: 20,
  });
  ({ slack, sandbox } = fleet);
});
afterAll(async () => {
  await fleet?.close();
});

describe('several processes against one Redis', () => {
  it('builds in each role only what the role uses', async () => {
    const web = await start('web');
    const worker = await start('worker');
    const scheduler = await start('scheduler');
    // The web role answers people: its surfaces read access, bindings and the assistant tokens as they start
    // (the request layer and the Slack client wait for the first request).
    expect(web.made()).toEqual(expect.arrayContaining(['access', 'bindings', 'tokens', 'queue']));
    // A worker runs jobs with its own Slack client: no request layer, access, tokens or web Slack client.
    const webOnly = ['requests', 'access', 'reach', 'tokens', 'slack', 'answers', 'gatewayAnswers'];
    for (const part of webOnly) {
      expect(worker.made()).not.toContain(part);
      expect(scheduler.made()).not.toContain(part);
    }
    // The scheduler reads the subscriptions and adds to the digest queue; every process shows the queue's depth.
    expect(scheduler.made()).toEqual(expect.arrayContaining(['digests', 'digestQueue', 'queue']));
    expect(worker.made()).not.toContain('digestQueue');
    await Promise.all([web.stop(), worker.stop(), scheduler.stop()]);
  });

  it('two web and two worker roles behave as one bot: every action runs once', async () => {
    const webA = await start('web');
    const webB = await start('web');
    const workerA = await start('worker');
    const workerB = await start('worker');
    expect(webA.workers).toBeUndefined();
    expect(workerA.bot).toBeUndefined();
    expect(workerA.workers && workerB.workers).toBeTruthy();
    // A worker serves health and metrics (probes, scrapes), never Slack's endpoint.
    const workerUrl = `http://127.0.0.1:${workerA.port}`;
    const health = await request(`${workerUrl}/healthz`);
    expect(health.statusCode).toBe(200);
    await health.body.dump();
    const metrics = await request(`${workerUrl}/metrics`);
    expect(metrics.statusCode).toBe(200);
    expect(await metrics.body.text()).toContain('# TYPE gateway_bot_queue_waiting_jobs gauge');
    const events = await request(`${workerUrl}/slack/events`, { method: 'POST', body: '{}' });
    expect(events.statusCode).toBe(404);
    await events.body.dump();
    const drivers = [webA, webB].map(
      (web) =>
        new SlackDriver({
          eventsUrl: `http://127.0.0.1:${web.port}/slack/events`,
          signingSecret: fleet.signingSecret,
          slack,
        }),
    );
    const [first, second] = drivers;
    if (!first || !second) throw new Error('no drivers');
    // Bound through one web process, read through the other: the binding lives in Redis.
    await first.command('use bright-dental', { user: 'UADMIN', channel: 'CROLES' });
    await slack.waitFor(() => slack.messages('CROLES').find((m) => m.text.includes('now bound')), {
      what: 'binding',
    });
    const urls = Array.from({ length: 12 }, (_, i) => `https://bright-dental.example/page-${i}`);
    await Promise.all(
      urls.map((url, i) =>
        (i % 2 ? first : second).command(`index ${url}`, { user: 'UMEMBER', channel: 'CROLES' }),
      ),
    );
    await slack.waitFor(
      () =>
        slack
          .messages('CROLES')
          .filter((m) => /done|white_check_mark/.test(textOf(m)) && m.text.includes('page-')).length === 12 ||
        undefined,
      { what: '12 jobs done', timeoutMs: 15_000 },
    );
    const posted = sandbox.requests().filter((r) => r.method === 'POST' && r.action === 'index_url');
    expect(posted.map((p) => p.fields?.url).sort()).toEqual([...urls].sort());
    expect(sandbox.counts()['bright-dental']?.index_url).toBe(12);
  });
});
