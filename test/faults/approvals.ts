import { blockKitViolations, unescapedMentions } from '../fleet/audit.js';
import { FLEET_ADMIN, FLEET_MEMBER, Fleet } from '../fleet/fleet.js';
import { bindChannel, FLEET_CLIENT } from '../fleet/mixed.js';
import type { PrivateRedis } from '../fleet/private-redis.js';
import { CHANNEL, type FaultRow } from './row.js';

/**
 * 50 concurrent Approve clicks: two web processes and two workers on one Redis; for each of `cards`
 * deploy requests, fifty approvers (a user group) click Approve at once, spread over both web processes.
 * Exactly one POST per card may reach the gateway ("duplicates" counts any more, "lost" a card with none),
 * and every other clicker must be told it was already approved ("ended silently" counts those not told).
 * Under the `both` sign-off policy, 25 agency approvers and 25 named client approvers (of the client's own
 * workspace) click at once: one of each side decides its step, and still exactly one POST.
 */

const GROUP = 'SFAULTAPPROVERS';
const CLIENT_TEAM = 'T0PARTNER';
const clickers = (policy: 'agency' | 'both') => ({
  agency: Array.from(
    { length: policy === 'both' ? 25 : 50 },
    (_, i) => `UCLICK${String(i).padStart(2, '0')}`,
  ),
  client:
    policy === 'both' ? Array.from({ length: 25 }, (_, i) => `UCLIENT${String(i).padStart(2, '0')}`) : [],
});

/** The client's people: in the channel, of the client's workspace, each named a client approver; then `both`. */
async function nameClientApprovers(fleet: Fleet, people: string[]): Promise<void> {
  const said = (pattern: RegExp) =>
    fleet.slack.waitFor(() => fleet.slack.messages(CHANNEL).find((m) => pattern.test(m.text)), {
      what: `the channel told ${pattern}`,
      timeoutMs: 15_000,
    });
  for (const id of people) {
    fleet.slack.simulate.addUser({ id, name: id.toLowerCase(), team_id: CLIENT_TEAM });
    fleet.slack.simulate.joinChannel(CHANNEL, id);
    await fleet.driver().command(`signoff add <@${id}>`, { user: FLEET_ADMIN, channel: CHANNEL });
    await said(new RegExp(`named <@${id}>`));
  }
  await fleet.driver().command('signoff policy both', { user: FLEET_ADMIN, channel: CHANNEL });
  await said(/sign-off to `both`/);
}
const textOf = (m: { text: string; blocks?: unknown[] }) => `${m.text}\n${JSON.stringify(m.blocks ?? [])}`;

export async function concurrentApprovals(
  redis: PrivateRedis,
  cards: number,
  policy: 'agency' | 'both' = 'agency',
): Promise<FaultRow> {
  const began = Date.now();
  const side = clickers(policy);
  const CLICKERS = [...side.agency, ...side.client];
  // The step winners (one under `agency`, one of each side under `both`) are not told anything.
  const winners = policy === 'both' ? 2 : 1;
  const fleet = await Fleet.start({
    name: 'approvals',
    redisUrl: redis.url,
    web: 2,
    workers: 2,
    env: { GATEWAY_APPROVERS: `${FLEET_ADMIN},${GROUP}` },
  });
  try {
    fleet.slack.simulate.setUserGroup(GROUP, side.agency);
    await bindChannel(fleet, CHANNEL);
    if (policy === 'both') await nameClientApprovers(fleet, side.client);
    const posts = () =>
      fleet.sandbox.requests().filter((r) => r.method === 'POST' && r.action === 'deploy_blog');
    let lost = 0;
    let duplicates = 0;
    let silent = 0;
    const details: string[] = [];
    const blogs = fleet.sandbox.records(FLEET_CLIENT, 'blogs');
    for (let c = 0; c < cards; c++) {
      const postId = String(blogs[c % blogs.length]?.id);
      const before = new Set(fleet.slack.messages(CHANNEL).map((m) => m.ts));
      const postsBefore = posts().length;
      await fleet.driver().command(`deploy ${postId}`, { user: FLEET_MEMBER, channel: CHANNEL });
      const card = await fleet.slack.waitFor(
        () =>
          fleet.slack
            .messages(CHANNEL)
            .find((m) => !before.has(m.ts) && m.text.startsWith('Approval needed')),
        { what: `approval card ${c + 1}`, timeoutMs: 20_000 },
      );
      const told = new Map(CLICKERS.map((u) => [u, fleet.slack.ephemerals(CHANNEL, u).length]));
      // Each clicker's own driver (round robin over the web processes), all at once.
      const drivers = CLICKERS.map(() => fleet.driver());
      await Promise.all(
        CLICKERS.map((user, i) => drivers[i]?.click(card, { actionId: 'approval_approve' }, { user })),
      );
      const settled = await fleet.slack
        .waitFor(
          () => {
            const now = fleet.slack.messages(CHANNEL).find((m) => m.ts === card.ts);
            return now && /· (done|failed)/.test(textOf(now)) ? now : undefined;
          },
          { what: `card ${c + 1} to end`, timeoutMs: 30_000 },
        )
        .catch(() => undefined);
      if (!settled) details.push(`card ${c + 1}: never showed an outcome`);
      // The other 49 are told; give their answers a moment to land.
      const notTold = () =>
        CLICKERS.filter(
          (u) =>
            !fleet.slack
              .ephemerals(CHANNEL, u)
              .slice(told.get(u) ?? 0)
              .some((m) => /already (approved|decided)/.test(textOf(m))),
        );
      await fleet.slack
        .waitFor(() => (notTold().length <= winners ? true : undefined), {
          what: 'the other clickers told',
          timeoutMs: 15_000,
        })
        .catch(() => undefined);
      await new Promise((r) => setTimeout(r, 300));
      const ran = posts().length - postsBefore;
      if (ran === 0) lost++;
      if (ran > 1) {
        duplicates += ran - 1;
        details.push(`card ${c + 1}: ${ran} POSTs`);
      }
      // The winner is not told "already approved"; anyone else not told ended silently.
      const missing = notTold().length - winners;
      if (missing > 0) {
        silent += missing;
        details.push(`card ${c + 1}: ${missing} clickers not told`);
      }
    }
    const blockKit = blockKitViolations(fleet.slack);
    const unescaped = unescapedMentions(fleet.slack, [CHANNEL], [FLEET_ADMIN, FLEET_MEMBER, ...CLICKERS]);
    const crashes = fleet.crashes();
    return {
      name:
        policy === 'both' ? '50 concurrent approve clicks, both sign-off' : '50 concurrent approve clicks',
      size: `${cards} cards × 50 clicks${policy === 'both' ? ' (25 agency, 25 client)' : ''}, 2 web processes`,
      lost,
      duplicates,
      silent,
      unescaped: unescaped.count,
      blockKit: blockKit.count,
      crashes: crashes.exits + crashes.unhandled,
      ms: Date.now() - began,
      note: `${posts().length} deploy POSTs for ${cards} approved cards`,
      details: [...details, ...unescaped.details, ...blockKit.details, ...crashes.details].slice(0, 12),
    };
  } finally {
    await fleet.stop();
  }
}
