import type { SlackPeople, SlackPerson } from '../slack/people.js';
import { TtlCache } from './ttl-cache.js';

export type { SlackPerson };

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

/** Who someone is, from users.info (scope users:read), cached; and the app's own workspace, from auth.test. */
export class UserDirectory {
  readonly #people: TtlCache<SlackPerson>;
  readonly #channels: TtlCache<readonly string[]>;
  #homeTeam: Promise<string> | undefined;

  constructor(
    private readonly slack: SlackPeople,
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
    // At most 20,000: a person in more channels than that is told of the first 20,000.
    return this.#channels.get(key, () => this.slack.channelsOf(userId, 20_000));
  }

  /** Slack said the person joined or left a channel: every process's list of their channels is stale. */
  async membershipChanged(userId: string): Promise<void> {
    await this.options.versions?.bump(userId);
  }

  /** Whether a person is in a channel now (conversations.members), asked every time: it names them an approver. */
  inChannel(userId: string, channel: string): Promise<boolean> {
    return this.slack.isMember(channel, userId);
  }

  person(userId: string): Promise<SlackPerson> {
    return this.#people.get(userId, () => this.slack.person(userId));
  }

  /** The workspace the app is installed in; asked once (a failed ask is asked again next time). */
  homeTeam(): Promise<string> {
    this.#homeTeam ??= this.slack.homeTeam().catch((error: unknown) => {
      this.#homeTeam = undefined;
      throw error;
    });
    return this.#homeTeam;
  }
}
