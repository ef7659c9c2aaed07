import type { MembershipVersions } from '../access/index.js';
import type { Redis } from '../redis/connection.js';

/**
 * Each person's channel-membership version in Redis, read by every process before it trusts its cached list of
 * the person's channels, and moved when Slack tells any process the person joined or left a channel
 * (member_joined_channel, member_left_channel: public and private channels alike). Two web processes thus
 * agree from the event on, instead of each keeping its own list until it expires.
 */

/** Longer than any cached list lives (5 minutes by default): an expired version cannot meet a list made under it. */
const VERSION_TTL_MS = 24 * 3_600_000;

export class RedisMembershipVersions implements MembershipVersions {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  #key(user: string) {
    return `${this.prefix}:membership:v:${user}`;
  }

  async of(user: string): Promise<string> {
    return (await this.redis.get(this.#key(user))) ?? '0';
  }

  async bump(user: string): Promise<void> {
    await this.redis.multi().incr(this.#key(user)).pexpire(this.#key(user), VERSION_TTL_MS).exec();
  }
}
