import type { SlackPeople, SlackPerson } from '../slack/people.js';

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

/**
 * A small in-process cache for answers that may be a few minutes old (who someone is, who is in a group):
 * entries expire after `ttlMs`, the oldest go first past `maxEntries`, concurrent lookups of one key share
 * one call, and a failed lookup is not remembered.
 */
export class TtlCache<V> {
  readonly #entries = new Map<string, { value: V; expiresAt: number }>();
  readonly #loading = new Map<string, Promise<V>>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
  ) {}

  async get(key: string, load: () => Promise<V>): Promise<V> {
    const hit = this.#entries.get(key);
    if (hit && hit.expiresAt > Date.now()) return hit.value;
    const pending = this.#loading.get(key);
    if (pending) return pending;
    const loading = load()
      .then((value) => {
        this.#entries.delete(key);
        this.#entries.set(key, { value, expiresAt: Date.now() + this.ttlMs });
        // A Map iterates in insertion order, so the first key is the oldest answer.
        while (this.#entries.size > this.maxEntries) {
          const oldest = this.#entries.keys().next().value;
          if (oldest === undefined) break;
          this.#entries.delete(oldest);
        }
        return value;
      })
      .finally(() => this.#loading.delete(key));
    this.#loading.set(key, loading);
    return loading;
  }

  /** Forgets an answer (the next get loads it again). */
  delete(key: string): void {
    this.#entries.delete(key);
  }

  get size(): number {
    return this.#entries.size;
  }
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
