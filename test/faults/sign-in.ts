import type { Sent } from '../fleet/audit.js';
import { FLEET_MEMBER, type Fleet } from '../fleet/fleet.js';
import { mixedCommand, sendAll } from '../fleet/mixed.js';
import type { PrivateRedis } from '../fleet/private-redis.js';
import { OAuthBrowser } from '../helpers/oauth-browser.js';
import {
  authorizeUrl,
  pkce,
  REDIRECT,
  refresh,
  registeredClient,
  tokenRequest,
} from '../helpers/oauth-flow.js';
import { CHANNEL, FAULT_TUNING, type FaultRow, runRow } from './row.js';
import {
  type FloodOutcome,
  type FloodSizes,
  floodMisses,
  floodNote,
  signInFloods,
} from './sign-in-floods.js';

/**
 * Sign-in abuse while people use Slack: a flood of dynamic registrations, token requests with made-up and
 * misused codes, refresh tokens replayed after rotation (two at once), all while commands arrive over two
 * web processes (registrations go to both); then floods of authorization requests (a 12,000-character state,
 * ordinary ones from many senders) and of one sign-in page (sign-in-floods.ts). Goals: no token issued to any
 * of the bad requests (and a replay revokes its grant, so the rotated token dies too), no Slack ack over 3 s,
 * and Redis's memory and the keys the floods left within a small bound.
 */

const ACK_LIMIT_MS = 3_000;

interface Abuse {
  registrations: number;
  badCodes: number;
  grants: number;
}

/** Honest grants to abuse later: one registered client, several sign-ins with Allow. */
async function honestGrants(base: string, count: number) {
  const clientId = await registeredClient(base, { client_name: 'Honest Assistant' });
  const grants: { refreshToken: string; code: { code: string; verifier: string } }[] = [];
  for (let i = 0; i < count; i++) {
    const { verifier, challenge } = pkce();
    const back = await new OAuthBrowser(REDIRECT).allow(authorizeUrl(base, { clientId, challenge }));
    const code = back.searchParams.get('code') ?? '';
    const issued = await tokenRequest(base, {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      client_id: clientId,
      redirect_uri: REDIRECT,
      resource: `${base}/mcp`,
    });
    if (!issued.body.refresh_token)
      throw new Error(`sign-in row: no honest token (${JSON.stringify(issued.body)})`);
    grants.push({ refreshToken: issued.body.refresh_token, code: { code, verifier } });
  }
  return { clientId, grants };
}

async function inLanes(count: number, lanes: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (next < count) await work(next++);
    }),
  );
}

export function signInAbuse(
  redis: PrivateRedis,
  sizes: Abuse & { commands: number; floods: FloodSizes },
): Promise<FaultRow> {
  const tally = { registered: 0, limited: 0, badRefused: 0, wrongTokens: 0, wrongly: [] as string[] };
  let slowAcks: Sent[] = [];
  let floods: FloodOutcome | undefined;
  return runRow(
    'sign-in abuse (registrations, bad codes, replayed refresh tokens) with commands',
    `${sizes.registrations} registrations + ${sizes.badCodes} bad codes + ${Math.floor(sizes.grants / 2) * 3} replays, ${sizes.commands} commands; ${sizes.floods.oversized} oversized + ${sizes.floods.authorizations} authorizations from ${sizes.floods.senders} senders, ${sizes.floods.signInPages} sign-in pages`,
    {
      name: 'signin',
      redisUrl: redis.url,
      web: 2,
      workers: 1,
      tuning: FAULT_TUNING,
      signIn: true,
      // As behind the documented proxy: each X-Forwarded-For is a sender of the floods.
      env: { TRUST_PROXY: '1' },
    },
    async (fleet: Fleet) => {
      fleet.slack.simulate.joinChannel(CHANNEL, FLEET_MEMBER);
      fleet.slack.simulate.signInAs(FLEET_MEMBER);
      const bases = fleet.web.map((w) => `http://127.0.0.1:${w.port}`);
      const base = bases[0] as string;
      const { clientId, grants: all } = await honestGrants(base, sizes.grants);
      // Half the grants have their (used) codes presented again, which revokes them; the others are replayed.
      const reused = all.slice(0, Math.ceil(all.length / 2));
      const grants = all.slice(reused.length);
      const wrong = (what: string, body: Record<string, string>) => {
        if (body.access_token || body.refresh_token) {
          tally.wrongTokens++;
          tally.wrongly.push(`${what}: ${JSON.stringify(body).slice(0, 200)}`);
        } else tally.badRefused++;
      };
      const registrations = inLanes(sizes.registrations, 16, async (i) => {
        const res = await fetch(`${bases[i % bases.length]}/oauth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            client_name: `flood ${i}`,
            redirect_uris: [REDIRECT],
            token_endpoint_auth_method: 'none',
          }),
        });
        if (res.status === 429) tally.limited++;
        else if (res.status === 201) tally.registered++;
        await res.arrayBuffer();
      });
      const badCodes = inLanes(sizes.badCodes, 8, async (i) => {
        const honest = reused[i % reused.length]?.code;
        // Made-up codes, and the honest (already used) codes: with their verifier, a wrong one, another client.
        const code = i % 3 === 0 ? `made-up-${i}-${'x'.repeat(30)}` : (honest?.code ?? '');
        const answer = await tokenRequest(base, {
          grant_type: 'authorization_code',
          code,
          code_verifier: i % 3 === 1 ? (honest?.verifier ?? '') : pkce().verifier,
          client_id: i % 3 === 2 ? 'not-a-client' : clientId,
          redirect_uri: REDIRECT,
          resource: `${base}/mcp`,
        });
        wrong(`bad code ${i}`, answer.body);
      });
      const replays = inLanes(grants.length, 4, async (i) => {
        const old = grants[i]?.refreshToken as string;
        const rotated = await refresh(base, clientId, old);
        // The old one twice at once: both refused (consuming is one atomic step in Redis) and the grant revoked.
        const [a, b] = await Promise.all([refresh(base, clientId, old), refresh(base, clientId, old)]);
        wrong(`replayed refresh ${i} (a)`, a?.body ?? {});
        wrong(`replayed refresh ${i} (b)`, b?.body ?? {});
        // The grant is revoked: the token the honest rotation gave is dead too.
        if (rotated.body.refresh_token)
          wrong(
            `rotated refresh ${i} after a replay`,
            (await refresh(base, clientId, rotated.body.refresh_token)).body,
          );
      });
      const [commands] = await Promise.all([
        sendAll(fleet, sizes.commands, (i) => mixedCommand(i, 'fs'), { channel: CHANNEL, inFlight: 4 }),
        registrations,
        badCodes,
        replays,
      ]);
      slowAcks = commands.filter((s) => s.ackMs > ACK_LIMIT_MS);
      const flooded = await signInFloods(fleet, redis.url, clientId, sizes.floods);
      floods = flooded;
      return {
        sent: commands,
        note: () =>
          `${tally.wrongTokens} tokens issued wrongly (${tally.badRefused} bad requests refused); registrations: ${tally.registered} accepted, ${tally.limited} rate-limited; ${slowAcks.length} acks over 3 s (slowest ${Math.max(0, ...commands.map((s) => s.ackMs))} ms)`,
        details: [floodNote(flooded), ...tally.wrongly.slice(0, 6)],
        missed: () => [
          ...(floods ? floodMisses(floods) : []),
          ...(tally.wrongTokens === 0 ? [] : [`${tally.wrongTokens} tokens issued to bad requests`]),
          ...(slowAcks.length === 0 ? [] : [`${slowAcks.length} Slack acks over 3 s`]),
        ],
      };
    },
    120_000 + sizes.commands * 200,
  );
}
