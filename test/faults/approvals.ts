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
 */

const GROUP = 'SFAULTAPPROVERS';
const CLICKERS = Array.from({ length: 50 }, (_, i) => `UCLICK${String(i).padStart(2, '0')}`);
const textOf = (m: { text: string; blocks?: unknown[] }) => `${m.text}\n${JSON.stringify(m.blocks ?? [])}`;

export async function concurrentApprovals(redis: PrivateRedis, cards: number): Promise<FaultRow> {
  const began = Date.now();
  const fleet = await Fleet.start({
    name: 'approvals',
    redisUrl: redis.url,
    web: 2,
    workers: 2,
    env: { GATEWAY_APPROVERS: `${FLEET_ADMIN},${GROUP}` },
  });
  try {
    fleet.slack.simulate.setUserGroup(GROUP, CLICKERS);
    await bindChannel(fleet, CHANNEL);
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
              .some((m) => /already approved/.test(textOf(m))),
        );
      await fleet.slack
        .waitFor(() => (notTold().length <= 1 ? true : undefined), {
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
      const missing = notTold().length - 1;
      if (missing > 0) {
        silent += missing;
        details.push(`card ${c + 1}: ${missing} clickers not told`);
      }
    }
    const blockKit = blockKitViolations(fleet.slack);
    const unescaped = unescapedMentions(fleet.slack, [CHANNEL], [FLEET_ADMIN, FLEET_MEMBER, ...CLICKERS]);
    const crashes = fleet.crashes();
    return {
      name: '50 concurrent approve clicks',
      size: `${cards} cards × 50 clicks, 2 web processes`,
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
