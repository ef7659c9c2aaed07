import { EventEmitter } from 'node:events';
import { ChannelPace } from './channel-pace.js';
import type {
  FakeCall,
  FakeChannel,
  FakeFile,
  FakeFunctionRun,
  FakeMessage,
  FakeSlackOptions,
  FakeUser,
  FakeView,
  ResponseSource,
} from './fake-types.js';

/** All the stand-in's mutable state, in one place so reset() is one call and handlers stay pure-ish. */

export interface TriggerRecord {
  user: string;
  expiresAt: number;
  used: boolean;
}

export interface ResponseUrlRecord {
  channel: string;
  user: string;
  source?: ResponseSource;
  expiresAt: number;
  uses: number;
}

export interface RateLimitRecord {
  remaining: number;
  retryAfterSec: number;
}

export const DEFAULT_USERS: FakeUser[] = [
  { id: 'UADMIN', name: 'alice', real_name: 'Alice Admin', tz: 'Europe/London', is_admin: true },
  { id: 'UMEMBER', name: 'bob', real_name: 'Bob Member', tz: 'America/New_York' },
  { id: 'UOTHER', name: 'carol', real_name: 'Carol Other', tz: 'UTC' },
  { id: 'UGUEST', name: 'dave', real_name: 'Dave Guest', tz: 'UTC', is_restricted: true },
  // People of two other workspaces, as in a Slack Connect channel: erin of the client's, frank of a third.
  { id: 'UEXTERNAL', name: 'erin', real_name: 'Erin Partner', tz: 'UTC', team_id: 'T0PARTNER' },
  { id: 'UFRANK', name: 'frank', real_name: 'Frank Third', tz: 'UTC', team_id: 'T0THIRD' },
];

const CHANNEL_ID = /^[CGD][A-Z0-9]{2,}$/;
const USER_ID = /^[UW][A-Z0-9]{2,}$/;

export class FakeState {
  readonly events = new EventEmitter();
  readonly calls: FakeCall[] = [];
  readonly channelMessages = new Map<string, FakeMessage[]>();
  readonly ephemeralMessages: FakeMessage[] = [];
  readonly views = new Map<string, FakeView>();
  /** Per user, the Home tab last published (also in `views`, so a click on it finds it by id). */
  readonly homes = new Map<string, string>();
  /** Per user, the ids of the open modal stack, bottom first. */
  readonly stacks = new Map<string, string[]>();
  readonly triggers = new Map<string, TriggerRecord>();
  readonly responseUrls = new Map<string, ResponseUrlRecord>();
  readonly rateLimits = new Map<string, RateLimitRecord>();
  /** chat.postMessage's per-channel pace, when on. */
  pace: ChannelPace | undefined;
  /** Methods Slack is down for: answered HTTP 503, or never answered at all. */
  readonly outages = new Map<string, 'error' | 'hang'>();
  readonly channels = new Map<string, FakeChannel & { botIsMember: boolean }>();
  readonly users = new Map<string, FakeUser>();
  readonly userGroups = new Map<string, string[]>();
  /** Per channel, the people who are members of it (users.conversations). */
  readonly channelMembers = new Map<string, Set<string>>();
  /** Files asked for with files.getUploadURLExternal, with their bytes once POSTed. */
  readonly files = new Map<string, FakeFile>();
  /** Workflow Builder step runs, by execution id (function-methods.ts). */
  readonly functionRuns = new Map<string, FakeFunctionRun>();

  constructor(private readonly options: FakeSlackOptions) {
    this.pace = options.channelPace ? new ChannelPace(options.channelPace) : undefined;
    this.seed();
  }

  private seed(): void {
    for (const u of this.options.users ?? DEFAULT_USERS) this.users.set(u.id, { ...u });
    for (const c of this.options.channels ?? [])
      this.channels.set(c.id, { ...c, botIsMember: c.botIsMember ?? true });
  }

  reset(): void {
    this.channelMembers.clear();
    this.calls.length = 0;
    this.channelMessages.clear();
    this.ephemeralMessages.length = 0;
    this.views.clear();
    this.homes.clear();
    this.stacks.clear();
    this.triggers.clear();
    this.responseUrls.clear();
    this.rateLimits.clear();
    this.outages.clear();
    this.channels.clear();
    this.users.clear();
    this.userGroups.clear();
    this.files.clear();
    this.functionRuns.clear();
    this.seed();
    this.changed();
  }

  /** Wakes waitFor() probes. */
  changed(): void {
    this.events.emit('change');
  }

  record(call: FakeCall): void {
    this.calls.push(call);
    this.changed();
  }

  /**
   * The channel an id or name refers to. Without a configured channel list any well-formed id exists on
   * first use (the bot a member), so tests need not declare every channel they talk in.
   */
  channel(idOrName: string): (FakeChannel & { botIsMember: boolean }) | undefined {
    // chat.postMessage to a user id posts in the bot's DM with that user (Slack returns the D… id).
    if (USER_ID.test(idOrName)) return this.directMessage(idOrName);
    const name = idOrName.replace(/^#/, '');
    const known = this.channels.get(idOrName) ?? [...this.channels.values()].find((c) => c.name === name);
    if (known || this.options.channels || !CHANNEL_ID.test(idOrName)) return known;
    const created = { id: idOrName, name: idOrName.toLowerCase(), botIsMember: true };
    this.channels.set(idOrName, created);
    return created;
  }

  /**
   * The user an id refers to. Without a configured user list any well-formed id (U…, W…) is a full member of
   * the stand-in's team on first use, as channels are, so tests need not declare every person.
   */
  user(id: string): FakeUser | undefined {
    const known = this.users.get(id);
    if (known || this.options.users || !USER_ID.test(id)) return known;
    const created = { id, name: id.toLowerCase() };
    this.users.set(id, created);
    return created;
  }

  private directMessage(user: string): FakeChannel & { botIsMember: boolean } {
    const id = `D${user}`;
    let dm = this.channels.get(id);
    if (!dm) {
      dm = { id, name: user, botIsMember: true };
      this.channels.set(id, dm);
    }
    return dm;
  }

  list(channel: string): FakeMessage[] {
    let list = this.channelMessages.get(channel);
    if (!list) {
      list = [];
      this.channelMessages.set(channel, list);
    }
    return list;
  }

  find(channel: string, ts: string): FakeMessage | undefined {
    return this.channelMessages.get(channel)?.find((m) => m.ts === ts);
  }

  stack(user: string): string[] {
    let s = this.stacks.get(user);
    if (!s) {
      s = [];
      this.stacks.set(user, s);
    }
    return s;
  }

  /** Closes views: the top one, or the whole stack of their user. */
  closeViews(user: string, all: boolean): void {
    const s = this.stack(user);
    const closing = all ? s.splice(0) : s.splice(-1);
    for (const id of closing) this.views.delete(id);
    this.changed();
  }
}
