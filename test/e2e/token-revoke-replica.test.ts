/**
 * `/gateway mcp revoke` on a Redis that fails over (a Sentinel-managed primary and its replica, processes of the
 * test's own): the person is told their token is refused from now on only once the replica holds the revoke,
 * so a failover right after cannot bring the token back. The replica is frozen (as on a loaded machine) while
 * the revoke is asked for; the answer waits for it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNEL, type Harness, MEMBER, startHarness, textOf } from '../helpers/bot-harness.js';
import { LOCAL_ACL, type LocalSentinels, startLocalSentinels } from '../helpers/redis-cluster.js';
import { redisCli } from '../helpers/redis-process.js';

const FROZEN_MS = 1_000;

describe('revoking a token waits for the replica', () => {
  let sentinels: LocalSentinels;
  let h: Harness;

  beforeAll(async () => {
    sentinels = await startLocalSentinels();
    h = await startHarness('e2e-revoke-replica', {
      REDIS_SENTINELS: sentinels.env,
      REDIS_SENTINEL_NAME: sentinels.name,
      REDIS_URL: `redis://${LOCAL_ACL.user}:${LOCAL_ACL.password}@127.0.0.1:1`,
    });
  }, 90_000);

  afterAll(async () => {
    await h?.close();
    await sentinels?.stop();
  });

  it('answers "revoked" only once the replica holds the revoke', async () => {
    const { token } = await h.runtime.services.assistantTokens.mint({
      user: MEMBER,
      team: 'T0',
      scope: 'read',
      ttlMs: 3_600_000,
    });
    const replica = await sentinels.replica();
    const idKey = `${h.prefix}:mcp:token-id:${token.id}`;
    const onReplica = async () =>
      (
        await redisCli([
          '-p',
          String(replica.port),
          '--user',
          LOCAL_ACL.user,
          '--pass',
          LOCAL_ACL.password,
          '--no-auth-warning',
          'exists',
          idKey,
        ])
      ).trim();
    for (let i = 0; i < 100 && (await onReplica()) !== '1'; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await onReplica()).toBe('1');
    replica.freeze(true);
    let thawedAt = 0;
    const thaw = setTimeout(() => {
      thawedAt = Date.now();
      replica.freeze(false);
    }, FROZEN_MS);
    try {
      const before = h.slack.ephemerals(CHANNEL, MEMBER).length;
      await h.gateway(`mcp revoke ${token.id}`, { user: MEMBER });
      await h.slack.waitFor(
        () =>
          h.slack
            .ephemerals(CHANNEL, MEMBER)
            .slice(before)
            .find((m) => /revoked/.test(textOf(m))),
        { what: 'the revoke', timeoutMs: 15_000 },
      );
      // Told only after the replica could take the write, and the replica has it.
      expect(thawedAt).toBeGreaterThan(0);
      expect(await onReplica()).toBe('0');
    } finally {
      clearTimeout(thaw);
      replica.freeze(false);
    }
  }, 60_000);
});
