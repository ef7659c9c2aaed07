import type { SlackPeople } from '../slack/people.js';
import { TtlCache } from './user-directory.js';

/** A Slack user-group id (S…), as GATEWAY_MEMBERS and GATEWAY_APPROVERS may name instead of a person. */
const isUserGroupId = (id: string): boolean => id.startsWith('S');

/**
 * Who is in a user group, from usergroups.users.list (scope usergroups:read), cached for a few minutes. Used
 * wherever a setting names people: members who may run actions, approvers.
 */
export class UserGroups {
  readonly #members: TtlCache<ReadonlySet<string>>;

  constructor(
    private readonly slack: SlackPeople,
    options: { ttlMs?: number; maxEntries?: number } = {},
  ) {
    this.#members = new TtlCache(options.ttlMs ?? 300_000, options.maxEntries ?? 200);
  }

  members(groupId: string): Promise<ReadonlySet<string>> {
    return this.#members.get(groupId, async () => new Set(await this.slack.groupMembers(groupId)));
  }

  /**
   * The ids among `ids` that name someone besides `userId`: people, and user groups with another member. A
   * group Slack cannot list counts as having someone (better named than called empty).
   */
  async besides(ids: readonly string[], userId: string): Promise<string[]> {
    const others: string[] = [];
    for (const id of ids) {
      if (id === userId) continue;
      if (!isUserGroupId(id)) {
        others.push(id);
        continue;
      }
      const members = await this.members(id).catch(() => undefined);
      if (!members || [...members].some((u) => u !== userId)) others.push(id);
    }
    return others;
  }

  /** True when `userId` is one of `ids`, directly or through a user group among them. */
  async includes(ids: readonly string[], userId: string): Promise<boolean> {
    if (ids.includes(userId)) return true;
    for (const id of ids) {
      if (isUserGroupId(id) && (await this.members(id)).has(userId)) return true;
    }
    return false;
  }
}
