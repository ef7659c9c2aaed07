import type { WebClient } from '@slack/web-api';
import { TtlCache } from './ttl-cache.js';

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

/**
 * A version of each person's channel membership that every process reads (store/membership-versions.ts): it
 * moves when Slack says the person joined or left a channel, so no process answers from a list made before.
 */
export interface MembershipVersions {
  of(user: string): Promise<string>;
  bump(user: string): Promise<void>;
}

export interface DirectoryOptions {
  /** How long an answer stands; default 5 minutes (a guest promoted or a person removed shows after that). */
  ttlMs?: number;
  /** Most people remembered at once; default 1,000. */
  maxEntries?: number;
  /** Shared membership versions; without them a list stands until it expires. */
  versions?: MembershipVersions;
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

/** Who someone is, from users.info (scope users:read), cached; and the app's own workspace, from auth.test. */
export class UserDirectory {
  readonly #people: TtlCache<SlackPerson>;
  readonly #channels: TtlCache<readonly string[]>;
  #homeTeam: Promise<string> | undefined;

  constructor(
    private readonly client: WebClient,
    private readonly options: DirectoryOptions = {},
  ) {
    this.#people = new TtlCache(options.ttlMs ?? 300_000, options.maxEntries ?? 1_000);
    this.#channels = new TtlCache(options.ttlMs ?? 300_000, options.maxEntries ?? 1_000);
  }

  /**
   * The channels a person is a member of (users.conversations; scopes channels:read, groups:read), cached as
   * users.info is, under the person's membership version: a join or a leave Slack told any process of makes
   * every process ask again. `fresh`: ask Slack now whatever the cache holds (before an action).
   */
  async channels(userId: string, options: { fresh?: boolean } = {}): Promise<readonly string[]> {
    const key = `${userId}#${(await this.options.versions?.of(userId)) ?? ''}`;
    if (options.fresh) this.#channels.delete(key);
    return this.#channels.get(key, async () => {
      const ids: string[] = [];
      let cursor: string | undefined;
      // At most 20 pages of 1,000: a person in more channels than that is told of the first 20,000.
      for (let page = 0; page < 20; page++) {
        const answer = (await this.client.users.conversations({
          user: userId,
          types: 'public_channel,private_channel',
          exclude_archived: true,
          limit: 1_000,
          ...(cursor ? { cursor } : {}),
        })) as { channels?: { id?: string }[]; response_metadata?: { next_cursor?: string } };
        for (const channel of answer.channels ?? []) if (channel.id) ids.push(channel.id);
        cursor = answer.response_metadata?.next_cursor || undefined;
        if (!cursor) break;
      }
      return ids;
    });
  }

  /** Slack said the person joined or left a channel: every process's list of their channels is stale. */
  async membershipChanged(userId: string): Promise<void> {
    await this.options.versions?.bump(userId);
  }

  person(userId: string): Promise<SlackPerson> {
    return this.#people.get(userId, async () => {
      const { user } = (await this.client.users.info({ user: userId })) as UsersInfo;
      return {
        id: user?.id ?? userId,
        teams: [user?.team_id, ...(user?.enterprise_user?.teams ?? [])].filter(
          (team): team is string => typeof team === 'string' && team !== '',
        ),
        guest: Boolean(user?.is_restricted || user?.is_ultra_restricted),
        deleted: Boolean(user?.deleted),
      };
    });
  }

  /** The workspace the app is installed in; asked once (a failed ask is asked again next time). */
  homeTeam(): Promise<string> {
    this.#homeTeam ??= this.client.auth.test().then(
      (auth) => {
        if (!auth.team_id) throw new Error('auth.test answered without a team_id');
        return auth.team_id;
      },
      (error: unknown) => {
        this.#homeTeam = undefined;
        throw error;
      },
    );
    return this.#homeTeam;
  }
}
