import { AUTHORIZATIONS } from '../../src/oauth/sign-in-limits.js';
import { createRedis } from '../../src/redis/connection.js';
import type { Fleet } from '../fleet/fleet.js';
import { OAuthBrowser } from '../helpers/oauth-browser.js';
import { authorizeUrl, pkce, REDIRECT } from '../helpers/oauth-flow.js';

/**
 * The sign-in row's floods of what anyone may send before signing in: authorization requests with a
 * 12,000-character `state`, a flood of ordinary ones from many addresses (the fleet trusts one proxy hop, so
 * each X-Forwarded-For is a sender), and one sign-in page opened again and again. Redis's used_memory and the
 * keys the floods left are read before and after; the goal fails when they grow past a small bound.
 */

/**
 * What the floods may leave: the sign-ins one minute's window lets in (two when the flood crosses a minute), the
 * sign-in whose page is opened again and again, and its one Slack state.
 */
const FLOOD_KEYS_BOUND = 2 * AUTHORIZATIONS.total + 2;
/** used_memory growth allowed: those sign-ins at a few KB each, and Redis's own noise. */
const FLOOD_MEMORY_BOUND = 4 * 1024 * 1024;

export interface FloodSizes {
  oversized: number;
  authorizations: number;
  senders: number;
  signInPages: number;
}

export interface FloodOutcome {
  usedBefore: number;
  usedAfter: number;
  keysLeft: { interactions: number; slackStates: number };
  statuses: Record<string, number>;
}

async function lanes(count: number, width: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) await work(next++);
    }),
  );
}

export async function signInFloods(
  fleet: Fleet,
  redisUrl: string,
  clientId: string,
  sizes: FloodSizes,
): Promise<FloodOutcome> {
  const redis = createRedis(redisUrl);
  const base = `http://127.0.0.1:${fleet.web[0]?.port}`;
  const count = async (what: string) => (await redis.keys(`${fleet.prefix}:oauth:${what}:*`)).length;
  const used = async () => Number(/^used_memory:(\d+)/m.exec(await redis.info('memory'))?.[1] ?? Number.NaN);
  const statuses: Record<string, number> = {};
  const tally = (what: string, status: number) => {
    statuses[`${what} ${status}`] = (statuses[`${what} ${status}`] ?? 0) + 1;
  };
  try {
    const before = { interactions: await count('Interaction'), slackStates: await count('slack-state') };
    const usedBefore = await used();
    const authorize = async (what: string, i: number, state?: string) => {
      const url = authorizeUrl(base, { clientId, challenge: pkce().challenge });
      if (state) url.searchParams.set('state', state);
      const sender = `198.18.${Math.floor(i / 250) % 250}.${i % 250}`;
      const res = await fetch(url, { headers: { 'x-forwarded-for': sender }, redirect: 'manual' });
      tally(what, res.status);
      await res.arrayBuffer();
    };
    // One sign-in's page opened again and again with its cookie: one Slack state is kept, not one each.
    const browser = new OAuthBrowser(REDIRECT);
    await browser.go(authorizeUrl(base, { clientId, challenge: pkce().challenge }));
    const signIn = new URL('/oauth/sign-in', base);
    await lanes(sizes.signInPages, 4, async () => {
      const res = await fetch(signIn, {
        headers: { cookie: browser.jar.header(signIn) },
        redirect: 'manual',
      });
      tally('sign-in page', res.status);
      await res.arrayBuffer();
    });
    await lanes(sizes.oversized, 16, (i) => authorize('oversized state', i, 's'.repeat(12_000)));
    await lanes(sizes.authorizations, 16, (i) => authorize('authorize', i % sizes.senders));
    return {
      usedBefore,
      usedAfter: await used(),
      keysLeft: {
        interactions: (await count('Interaction')) - before.interactions,
        slackStates: (await count('slack-state')) - before.slackStates,
      },
      statuses,
    };
  } finally {
    await redis.quit();
  }
}

export function floodMisses(o: FloodOutcome): string[] {
  const grown = o.usedAfter - o.usedBefore;
  const keys = o.keysLeft.interactions + o.keysLeft.slackStates;
  return [
    ...(Number.isFinite(grown) && grown <= FLOOD_MEMORY_BOUND
      ? []
      : [`Redis used_memory grew by ${grown} bytes under the sign-in floods (bound ${FLOOD_MEMORY_BOUND})`]),
    ...(keys <= FLOOD_KEYS_BOUND ? [] : [`the sign-in floods left ${keys} keys (bound ${FLOOD_KEYS_BOUND})`]),
    ...(o.keysLeft.slackStates <= 1
      ? []
      : [`one sign-in's page left ${o.keysLeft.slackStates} Slack states (one is kept per sign-in)`]),
  ];
}

export const floodNote = (o: FloodOutcome) =>
  `sign-in floods: used_memory ${o.usedBefore} → ${o.usedAfter} bytes (${o.usedAfter - o.usedBefore >= 0 ? '+' : ''}${o.usedAfter - o.usedBefore}), keys left ${o.keysLeft.interactions} sign-ins + ${o.keysLeft.slackStates} Slack states; ${Object.entries(
    o.statuses,
  )
    .map(([k, v]) => `${k}: ${v}`)
    .join(', ')}`;
