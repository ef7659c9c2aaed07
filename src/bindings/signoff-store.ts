import type { Redis } from '../redis/connection.js';

/**
 * A channel's sign-off: its policy and the client's named approvers (Slack Connect people of the client's own
 * workspace). One Redis hash per channel beside the binding's; each approver is kept with the client the channel
 * was bound to when they were named, so a channel rebound to another client has no approvers for it.
 */

const SIGNOFF_POLICIES = ['agency', 'client', 'both'] as const;
/** `agency`: an agency approver decides (the default); `client`: a named client approver; `both`: one of each. */
export type SignoffPolicy = (typeof SIGNOFF_POLICIES)[number];

export interface ClientApprover {
  userId: string;
  /** The person's workspace, from users.info when they were named: every click must come from it. */
  teamId: string;
  clientId: string;
  addedBy: string;
  addedAt: number;
}

export interface ChannelSignoff {
  policy: SignoffPolicy;
  /** The approvers named for the channel's current client. */
  approvers: ClientApprover[];
}

const APPROVER = 'approver:';

export const isSignoffPolicy = (value: string): value is SignoffPolicy =>
  (SIGNOFF_POLICIES as readonly string[]).includes(value);

export class SignoffStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  #key(channel: string): string {
    return `${this.prefix}:signoff:${channel}`;
  }

  /** The channels a person is named in (their Home tab points them there). */
  #personKey(user: string): string {
    return `${this.prefix}:signoff-of:${user}`;
  }

  /** The channel's policy and its approvers for `clientId` (the channel's client now). */
  async get(channel: string, clientId: string): Promise<ChannelSignoff> {
    const hash = await this.redis.hgetall(this.#key(channel));
    const policy = hash.policy && isSignoffPolicy(hash.policy) ? hash.policy : 'agency';
    const approvers: ClientApprover[] = [];
    for (const [field, value] of Object.entries(hash)) {
      if (!field.startsWith(APPROVER)) continue;
      const approver = JSON.parse(value) as ClientApprover;
      if (approver.clientId === clientId) approvers.push(approver);
    }
    approvers.sort((a, b) => a.addedAt - b.addedAt);
    return { policy, approvers };
  }

  async add(channel: string, approver: ClientApprover): Promise<void> {
    await this.redis
      .multi()
      .hset(this.#key(channel), `${APPROVER}${approver.userId}`, JSON.stringify(approver))
      .sadd(this.#personKey(approver.userId), channel)
      .exec();
  }

  /** True when the person was named in the channel. */
  async remove(channel: string, user: string): Promise<boolean> {
    const [[, removed] = []] =
      (await this.redis
        .multi()
        .hdel(this.#key(channel), `${APPROVER}${user}`)
        .srem(this.#personKey(user), channel)
        .exec()) ?? [];
    return Number(removed) > 0;
  }

  async setPolicy(channel: string, policy: SignoffPolicy): Promise<void> {
    await this.redis.hset(this.#key(channel), 'policy', policy);
  }

  /** The channels where `user` is named a client approver (of whichever client). */
  async channelsOf(user: string): Promise<string[]> {
    return (await this.redis.smembers(this.#personKey(user))).sort();
  }
}
