import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SlackDriver } from '../../src/local/driver.js';
import { type RoleFleet, startRoleFleet } from '../helpers/role-fleet.js';

/**
 * The Home tab when web and worker roles run apart and share only Redis: the worker ends the job, a web role
 * publishes the requester's tab again, and of two web roles only one publishes each change.
 */

let fleet: RoleFleet;
const CHANNEL = 'CHOME';

beforeAll(async () => {
  fleet = await startRoleFleet('e2e-home-roles', {
    env: { GATEWAY_ACTION_RATE: '1000/1s' },
    sandboxLatencyMs: 0,
  });
});
afterAll(async () => {
  await fleet?.close();
});

describe('the Home tab across processes', () => {
  it('is published again by a web role when a worker role ends one of the person’s jobs', async () => {
    const { slack } = fleet;
    const webs = [await fleet.start('web'), await fleet.start('web')];
    await fleet.start('worker', { worker: { reconcileGraceMs: 50, backoffMs: 50 } });
    const [first, second] = webs.map(
      (web) =>
        new SlackDriver({
          eventsUrl: `http://127.0.0.1:${web.port}/slack/events`,
          signingSecret: fleet.signingSecret,
          slack,
        }),
    );
    if (!first || !second) throw new Error('no drivers');
    await first.command('use bright-dental', { user: 'UADMIN', channel: CHANNEL });
    await slack.waitFor(() => slack.messages(CHANNEL).find((m) => m.text.includes('now bound')), {
      what: 'binding',
    });
    await second.homeOpened({ user: 'UMEMBER' });
    await slack.waitFor(() => slack.home('UMEMBER'), { what: 'the Home tab' });
    const url = `https://bright-dental.example/home-${Date.now()}`;
    await first.command(`index ${url}`, { user: 'UMEMBER', channel: CHANNEL });
    const done = await slack.waitFor(
      () => slack.messages(CHANNEL).find((m) => m.text.includes(url) && /done/.test(m.text)),
      { what: 'the job done' },
    );
    const ended = Date.now();
    await slack.waitFor(
      () =>
        (slack.home('UMEMBER')?.view.blocks ?? []).some(
          (b: { text?: { text?: string } }) => b.text?.text?.includes(url) && /\ndone ·/.test(b.text.text),
        ),
      { what: 'the job done on the Home tab', timeoutMs: 3_000 },
    );
    expect(Date.now() - ended).toBeLessThan(3_000);
    expect(done).toBeDefined();
    // Queued, started and done within the debounce: one publish, by one of the two web roles.
    await new Promise((r) => setTimeout(r, 2_500));
    const publishes = slack.calls.filter((c) => c.method === 'views.publish' && c.args.user_id === 'UMEMBER');
    expect(publishes.length).toBeLessThanOrEqual(3);
  });
});
