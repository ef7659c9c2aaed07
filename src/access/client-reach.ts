import type { BindingStore, ChannelBinding } from '../bindings/index.js';
import type { AppLogger } from '../logger.js';
import { AccessError, AccessErrorCode } from './access-error.js';
import type { AccessPolicy } from './policy.js';
import type { UserDirectory } from './user-directory.js';

/**
 * Which clients a person reaches outside a channel (an assistant's token): admins every client the agency key
 * reaches; everyone else the clients bound to the channels they are a member of (users.conversations), as in
 * Slack, where a member reads and acts on a client only in its bound channel.
 */
export interface Reach {
  /** An admin: every client the key reaches. */
  all: boolean;
  /** The person's own bound channels, per client, the first bound first. */
  channels: ReadonlyMap<string, ChannelBinding[]>;
}

export class ClientReach {
  constructor(
    private readonly access: AccessPolicy,
    private readonly directory: UserDirectory,
    private readonly bindings: BindingStore,
    private readonly logger: AppLogger,
  ) {}

  /** `fresh`: the person's channels asked of Slack now, not from the cache (before an action). */
  async of(user: string, options: { fresh?: boolean } = {}): Promise<Reach> {
    let channels: readonly string[];
    try {
      channels = await this.directory.channels(user, options);
    } catch (error) {
      // Fail closed, as every access lookup does.
      this.logger.warn('could not list a person’s channels; refusing', error);
      throw new AccessError(AccessErrorCode.Unchecked);
    }
    const bound = await Promise.all(channels.map((channel) => this.bindings.get(channel)));
    const byClient = new Map<string, ChannelBinding[]>();
    for (const binding of bound) {
      if (!binding) continue;
      const list = byClient.get(binding.clientId) ?? [];
      list.push(binding);
      byClient.set(binding.clientId, list);
    }
    for (const list of byClient.values()) list.sort((a, b) => a.boundAt.localeCompare(b.boundAt));
    return { all: this.access.isAdmin(user), channels: byClient };
  }

  /**
   * The reach an action is taken on: the person's channels as Slack tells them now, never the cached list, so
   * nobody acts in a channel they left (a lost `member_left_channel`) or is refused in one they just joined before
   * the bot did (Slack sends no event then). Every surface that asks for an action reads reach through this.
   */
  forAction(user: string): Promise<Reach> {
    return this.of(user, { fresh: true });
  }

  /** Whether the person may act for the client in the channel: admins anywhere, members in its bound channels. */
  actsIn(reach: Reach, clientId: string, channel: string): boolean {
    return reach.all || (reach.channels.get(clientId) ?? []).some((b) => b.channel === channel);
  }

  /** Slack said the person joined or left a channel: their reach is read anew, by every process. */
  membershipChanged(user: string): Promise<void> {
    return this.directory.membershipChanged(user);
  }

  /** Whether the person reaches the client at all. */
  reaches(reach: Reach, clientId: string): boolean {
    return reach.all || reach.channels.has(clientId);
  }

  /**
   * The channels an action for the client may report to, the first bound first: a member's own bound channels;
   * for an admin, every channel bound to the client (their own too, should the index not know one).
   */
  async targets(reach: Reach, clientId: string): Promise<string[]> {
    const own = (reach.channels.get(clientId) ?? []).map((b) => b.channel);
    if (!reach.all) return own;
    const bound = await this.bindings.channelsOf(clientId);
    return [...bound, ...own.filter((channel) => !bound.includes(channel))];
  }
}
