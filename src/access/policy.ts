import type { Config } from '../config.js';
import type { AppLogger } from '../logger.js';
import { AccessError, AccessErrorCode } from './access-error.js';
import type { UserDirectory } from './user-directory.js';
import type { UserGroups } from './user-groups.js';

type AccessConfig = Pick<Config, 'admins' | 'approvers' | 'members' | 'allowedActions'>;

/** What the policy needs to know of an action: its name, and whether only the discovery call lists it. */
export interface ActionRef {
  action: string;
  discovered: boolean;
}

/**
 * Who may do what (docs/security.md), decided in one place for every surface: the command router, the button
 * and modal listeners and the request path call it; none of them re-implements a rule.
 * - People: guests and people of another workspace (Slack Connect) may do nothing, except a client's named
 *   approvers, who may decide that client's approvals in the channel they were named in (approvals/signoff-rule.ts).
 * - Admins (GATEWAY_ADMINS) may do everything: bind, list clients, run any action.
 * - Members (GATEWAY_MEMBERS, users or groups; unset: every full member) run the spec's actions and those listed
 *   in GATEWAY_ALLOWED_ACTIONS; approvers count as members.
 * - Retry and Retry anyway: the requester, admins and approvers.
 */
export class AccessPolicy {
  readonly #admins: ReadonlySet<string>;
  readonly #allowed: ReadonlySet<string>;

  constructor(
    private readonly config: AccessConfig,
    private readonly directory: UserDirectory,
    private readonly groups: UserGroups,
    private readonly logger: AppLogger,
  ) {
    this.#admins = new Set(config.admins);
    this.#allowed = new Set(config.allowedActions);
  }

  isAdmin(user: string): boolean {
    return this.#admins.has(user);
  }

  /** The workspace the app is installed in (auth.test): what an assistant token is bound to. */
  homeTeam(): Promise<string> {
    return this.#checked(() => this.directory.homeTeam());
  }

  /** The admins' user ids: refusals name them as the people to ask. */
  admins(): readonly string[] {
    return [...this.#admins];
  }

  /** The approvers who could decide a request of `requester`'s: everyone named but them, groups included. */
  otherApprovers(requester: string): Promise<string[]> {
    return this.groups.besides(this.config.approvers, requester);
  }

  async isApprover(user: string): Promise<boolean> {
    return this.#checked(() => this.groups.includes(this.config.approvers, user));
  }

  /** Refuses guests and other workspaces' people. `payloadTeam`: the team a click or submission says it is from. */
  async requirePerson(user: string, payloadTeam?: string): Promise<void> {
    const [home, person] = await this.#checked(() =>
      Promise.all([this.directory.homeTeam(), this.directory.person(user)]),
    );
    // users.info is the authority (a Grid user may click from another workspace of the org and still belong to
    // this one); the payload's team counts only when Slack gave no team at all.
    const teams = person.teams.length > 0 ? person.teams : payloadTeam ? [payloadTeam] : [];
    if (teams.length > 0 && !teams.includes(home)) throw new AccessError(AccessErrorCode.External);
    if (person.guest || person.deleted) throw new AccessError(AccessErrorCode.Guest);
  }

  /**
   * The person's workspaces (users.info) and whether one is the app's own; fails closed. A client approver's
   * click is judged from this and the frozen approval (approvals/signoff-rule.ts).
   */
  async workspaceOf(user: string): Promise<{ home: boolean; teams: string[] }> {
    const [home, person] = await this.#checked(() =>
      Promise.all([this.directory.homeTeam(), this.directory.person(user)]),
    );
    return { home: person.teams.length === 0 || person.teams.includes(home), teams: person.teams };
  }

  /**
   * The person check of a sign-off click (Approve, Reject on a card): as requirePerson, except that a person of
   * another workspace passes on to the approval's own rule, which lets through only the client approvers frozen
   * into it. A guest or a deactivated person is refused here whatever their workspace.
   */
  async requireSignoffPerson(user: string, payloadTeam?: string): Promise<void> {
    try {
      await this.requirePerson(user, payloadTeam);
    } catch (error) {
      if (!(error instanceof AccessError && error.code === AccessErrorCode.External)) throw error;
      const person = await this.#checked(() => this.directory.person(user));
      if (person.guest || person.deleted) throw new AccessError(AccessErrorCode.Guest);
    }
  }

  /** Whether `user` is a member of `channel` now (conversations.members); fails closed. */
  inChannel(user: string, channel: string): Promise<boolean> {
    return this.#checked(() => this.directory.inChannel(user, channel));
  }

  /** The client roster is the agency's: in a channel shared with one client, no one else's names. */
  requireRead(user: string, resource: string): void {
    if (resource === 'clients' && !this.isAdmin(user))
      throw new AccessError(AccessErrorCode.AdminOnlyRead, { admins: this.admins() });
  }

  async requireAction(user: string, entry: ActionRef): Promise<void> {
    if (this.isAdmin(user)) return;
    if (entry.discovered && !this.#allowed.has(entry.action.toLowerCase())) {
      throw new AccessError(AccessErrorCode.AdminOnlyAction, { action: entry.action, admins: this.admins() });
    }
    if (this.config.members.length === 0) return;
    if (await this.#checked(() => this.groups.includes(this.config.members, user))) return;
    if (await this.isApprover(user)) return;
    throw new AccessError(AccessErrorCode.NotMember, { admins: this.admins() });
  }

  async requireRetry(user: string, requestedBy: string): Promise<void> {
    if (user === requestedBy || this.isAdmin(user) || (await this.isApprover(user))) return;
    throw new AccessError(AccessErrorCode.NotRequester);
  }

  /** A lookup that fails refuses (fail closed) and says so, rather than letting anyone through. */
  async #checked<T>(lookup: () => Promise<T>): Promise<T> {
    try {
      return await lookup();
    } catch (error) {
      this.logger.warn('access check failed; refusing', error);
      throw new AccessError(AccessErrorCode.Unchecked);
    }
  }
}
