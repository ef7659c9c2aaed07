import type { WebClient } from '@slack/web-api';

/**
 * Who people are, as Slack says: the lookups the access policy needs (users.info, users.conversations,
 * usergroups.users.list, auth.test), through the people client (slack/web-clients.ts: short retries, no waiting
 * out a 429, since a person is waiting). access/ caches them; this is only the way out.
 */

/** What the bot needs to know about a person to decide what they may do. */
export interface SlackPerson {
  id: string;
  /**
   * The workspaces the person belongs to: their own (`team_id`) and, on Enterprise Grid, every workspace of the
   * org they are in (`enterprise_user.teams`). None of them the app's means a Slack Connect (external) user.
   */
  teams: string[];
  /** A multi-channel or single-channel guest (users.info `is_restricted` / `is_ultra_restricted`). */
  guest: boolean;
  deleted: boolean;
}

export interface SlackPeople {
  /** users.info (scope users:read). */
  person(user: string): Promise<SlackPerson>;
  /** The public and private channels `user` is a member of (scopes channels:read, groups:read), at most `max`. */
  channelsOf(user: string, max: number): Promise<string[]>;
  /**
   * Whether `user` is a member of `channel` (conversations.members; scopes channels:read, groups:read): people of
   * another workspace in a shared channel included.
   */
  isMember(channel: string, user: string): Promise<boolean>;
  /** Who is in a user group (scope usergroups:read). */
  groupMembers(group: string): Promise<string[]>;
  /** The workspace the app is installed in (auth.test). */
  homeTeam(): Promise<string>;
}

interface UsersInfo {
  user?: {
    id?: string;
    team_id?: string;
    is_restricted?: boolean;
    is_ultra_restricted?: boolean;
    deleted?: boolean;
    enterprise_user?: { teams?: string[] };
  };
}

const PAGE = 1_000;

export function createSlackPeople(client: WebClient): SlackPeople {
  return {
    async person(user) {
      const answer = (await client.users.info({ user })) as UsersInfo;
      const found = answer.user;
      return {
        id: found?.id ?? user,
        teams: [found?.team_id, ...(found?.enterprise_user?.teams ?? [])].filter(
          (team): team is string => typeof team === 'string' && team !== '',
        ),
        guest: Boolean(found?.is_restricted || found?.is_ultra_restricted),
        deleted: Boolean(found?.deleted),
      };
    },
    async channelsOf(user, max) {
      const ids: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page * PAGE < max; page++) {
        const answer = (await client.users.conversations({
          user,
          types: 'public_channel,private_channel',
          exclude_archived: true,
          limit: PAGE,
          ...(cursor ? { cursor } : {}),
        })) as { channels?: { id?: string }[]; response_metadata?: { next_cursor?: string } };
        for (const channel of answer.channels ?? []) if (channel.id) ids.push(channel.id);
        cursor = answer.response_metadata?.next_cursor || undefined;
        if (!cursor) break;
      }
      return ids;
    },
    async isMember(channel, user) {
      let cursor: string | undefined;
      for (let page = 0; page < 50; page++) {
        const answer = await client.conversations.members({
          channel,
          limit: PAGE,
          ...(cursor ? { cursor } : {}),
        });
        if (answer.members?.includes(user)) return true;
        cursor = answer.response_metadata?.next_cursor || undefined;
        if (!cursor) break;
      }
      return false;
    },
    async groupMembers(group) {
      const answer = await client.usergroups.users.list({ usergroup: group });
      return answer.users ?? [];
    },
    async homeTeam() {
      const auth = await client.auth.test();
      if (!auth.team_id) throw new Error('auth.test answered without a team_id');
      return auth.team_id;
    },
  };
}
