import type { ChannelPaceOptions } from './channel-pace.js';
/** Public shapes of the local Slack stand-in: what tests, the driver and the demo console read. */

export interface FakeUser {
  id: string;
  name: string;
  real_name?: string;
  tz?: string;
  is_admin?: boolean;
  /** A guest: multi-channel (restricted) or single-channel (ultra restricted). */
  is_restricted?: boolean;
  is_ultra_restricted?: boolean;
  /** Another workspace's user (Slack Connect); default the stand-in's own team. */
  team_id?: string;
  /** Enterprise Grid: every workspace of the org the user belongs to (users.info `enterprise_user.teams`). */
  enterprise_teams?: string[];
  deleted?: boolean;
}

export interface FakeChannel {
  id: string;
  name: string;
  /** Default true. */
  botIsMember?: boolean;
  /** Archived: posts are refused with Slack's `is_archived`. */
  archived?: boolean;
}

export interface FakeSlackOptions {
  /** 0 (default): any free loopback port. */
  port?: number;
  /** Default 'xoxb-standin'. */
  botToken?: string;
  /** The one app-level token `apps.connections.open` accepts (invalid_auth for another); default: any xapp- token. */
  appToken?: string;
  teamId?: string;
  teamDomain?: string;
  /** Default 'UBOT'. */
  botUserId?: string;
  botId?: string;
  appId?: string;
  /** Known users; default: a small sample team (UADMIN alice, UMEMBER bob, UOTHER carol). */
  users?: FakeUser[];
  /** When given, only these channels exist; otherwise any well-formed id (C…, G…, D…) exists on first use. */
  channels?: FakeChannel[];
  /** Trigger ids die after this long (Slack: 3 s). */
  triggerTtlMs?: number;
  /** Response URLs die after this long (Slack: 30 min). */
  responseUrlTtlMs?: number;
  /** The app's OAuth client for Sign in with Slack (`openid.connect.token`); defaults given. */
  clientId?: string;
  clientSecret?: string;
  /** Slack's per-channel pace for chat.postMessage (429 with Retry-After beyond it); off by default. */
  channelPace?: ChannelPaceOptions;
}

export interface FakeMessage {
  ts: string;
  channel: string;
  user?: string;
  bot_id?: string;
  text: string;
  blocks?: unknown[];
  thread_ts?: string;
  reply_count?: number;
  /** A thread reply also shown in the channel (reply_broadcast). */
  broadcast?: boolean;
  ephemeral?: boolean;
  forUser?: string;
  edited?: { ts: string; user?: string };
  metadata?: unknown;
  /** Files shared with the message (files.completeUploadExternal), as Slack lists them on it. */
  files?: FakeFileRef[];
  via: 'api' | 'response_url' | 'ack';
}

/** A file as a message lists it. */
interface FakeFileRef {
  id: string;
  name: string;
  title: string;
  mimetype: string;
  alt_txt?: string;
}

/** An upload the stand-in keeps: what getUploadURLExternal was told, and the bytes once they were POSTed. */
export interface FakeFile {
  id: string;
  name: string;
  /** The length announced; the bytes must match it for completeUploadExternal. */
  length: number;
  mimetype: string;
  title?: string;
  alt_txt?: string;
  bytes?: Buffer;
  /** Where completeUploadExternal shared it. */
  shares?: Array<{ channel: string; ts: string }>;
}

export interface FakeView {
  id: string;
  hash: string;
  user: string;
  trigger_id?: string;
  // biome-ignore lint/suspicious/noExplicitAny: the view object as Slack returns it; tests read any field
  view: any;
  errors?: Record<string, string>;
}

export interface FakeCall {
  method: string;
  args: Record<string, unknown>;
  at: number;
  ok: boolean;
  error?: string;
  /** A response_url POST: the id at the end of the URL, so a caller can tell which request it answers. */
  responseUrl?: string;
}

/** What a response_url POST or an ack body carries (Slack's message response fields). */
export interface ResponsePayload {
  text?: string;
  blocks?: unknown[];
  response_type?: 'ephemeral' | 'in_channel';
  replace_original?: boolean | string;
  delete_original?: boolean | string;
  thread_ts?: string;
}

/** The message a response_url or an ack answers for: a click on it may replace or delete it. */
export interface ResponseSource {
  ts: string;
  ephemeral: boolean;
}

/** Socket Mode envelope types the stand-in delivers (Events API envelopes are not used by this bot). */
export type EnvelopeType = 'slash_commands' | 'interactive' | 'events_api';

/** The bot's ack of one envelope: its payload (`{}` for an empty ack) and how long it took. */
export interface EnvelopeAck {
  envelope_id: string;
  ackPayload: unknown;
  elapsedMs: number;
}

export interface FakeSocketMode {
  /** True while at least one Socket Mode connection is open (the bot got `hello`). */
  connected(): boolean;
  /**
   * Pushes an envelope to the newest connection; resolves when the bot acks it, rejects with a
   * FakeSocketError (`socket_not_connected`, `socket_ack_timeout` after 5 s unless told) otherwise.
   */
  send(type: EnvelopeType, payload: unknown, opts?: { timeoutMs?: number }): Promise<EnvelopeAck>;
}

export interface WaitForOptions {
  timeoutMs?: number;
  what?: string;
}

/** A Workflow Builder step run (function-methods.ts). */
export interface FakeFunctionRun {
  executionId: string;
  workflowExecutionId: string;
  callbackId: string;
  inputs: Record<string, unknown>;
  /** The run's `bot_access_token` (xwfp-…): the only token its completion takes. */
  token: string;
  ended?: { ok: true; outputs: Record<string, unknown> } | { ok: false; error: string };
  /** Completion calls the run received (a second one is refused). */
  completions: number;
}

export interface FakeSlack {
  /** 'http://127.0.0.1:PORT/api/': give this to Bolt as clientOptions.slackApiUrl. */
  apiUrl: string;
  /** 'http://127.0.0.1:PORT': the web host too (SLACK_WEB_URL): Sign in with Slack's pages and keys. */
  origin: string;
  botToken: string;
  /** The app's OAuth client id and secret (SLACK_CLIENT_ID, SLACK_CLIENT_SECRET). */
  clientId: string;
  clientSecret: string;
  teamId: string;
  teamDomain: string;
  botUserId: string;
  botId: string;
  appId: string;
  /** Every Web API call, response_url post and recorded ack, oldest first. */
  calls: FakeCall[];
  /** Top-level channel messages, oldest first (broadcast replies and in_channel responses included). */
  messages(channel: string): FakeMessage[];
  /** Replies of a thread, oldest first (the parent excluded). */
  thread(channel: string, threadTs: string): FakeMessage[];
  ephemerals(channel: string, user?: string): FakeMessage[];
  /** Open modal stacks, bottom first; one user's stack when given. */
  views(user?: string): FakeView[];
  findMessage(pred: (m: FakeMessage) => boolean): FakeMessage | undefined;
  waitFor<T>(probe: () => T | undefined | false | null, opts?: WaitForOptions): Promise<T>;
  /** A URL on this server, usable 5 times within 30 minutes, like Slack's. */
  newResponseUrl(channel: string, user: string, source?: ResponseSource): string;
  /** A trigger id valid for 3 s (triggerTtlMs), for one views.open or views.push. */
  newTriggerId(user?: string): string;
  /** Records a response the way Slack shows it (used by the response_url route and by the driver for acks). */
  recordResponse(
    target: { channel: string; user: string; source?: ResponseSource },
    payload: ResponsePayload,
    via: 'response_url' | 'ack',
  ): { ok: boolean; error?: string };
  /** The open view with this id (current hash and content), if any. */
  getView(viewId: string): FakeView | undefined;
  /** An uploaded file, bytes and all (files.getUploadURLExternal, the POST, files.completeUploadExternal). */
  file(id: string): FakeFile | undefined;
  /** Every file uploaded so far, oldest first. */
  files(): FakeFile[];
  /** The Home tab last published for a user (views.publish), if any. */
  home(user: string): FakeView | undefined;
  /** Applies a view_submission response (or a close) the way Slack's client does. */
  applyViewResponse(viewId: string, body: unknown): { ok: boolean; error?: string };
  channelName(channel: string): string;
  userName(user: string): string;
  simulate: {
    /** The next `count` calls (default 1) of `method` get HTTP 429 with Retry-After (default 1 s). */
    ratelimit(method: string, count?: number, retryAfterSec?: number): void;
    /** Slack's per-channel pace for chat.postMessage from now on (channel-pace.ts); undefined turns it off. */
    pace(options: ChannelPaceOptions | undefined): void;
    /** Slack is down for these methods until `restore`: every call is answered HTTP 503 ('error') or never ('hang'). */
    outage(methods: readonly string[], mode?: 'error' | 'hang'): void;
    restore(): void;
    removeBotFrom(channel: string): void;
    /** Archives a channel: chat.postMessage answers `is_archived`, conversations.info says so. */
    archive(channel: string): void;
    addBotTo(channel: string): void;
    /** Adds or replaces a user: a guest (`is_restricted`), another workspace's (`team_id`), anyone. */
    addUser(user: FakeUser): void;
    /** Sets the members of a user group (S…), as usergroups.users.list answers them. */
    setUserGroup(groupId: string, userIds: string[]): void;
    /** Makes a person a member of a channel, or no longer one (what users.conversations answers). */
    joinChannel(channel: string, user: string): void;
    leaveChannel(channel: string, user: string): void;
    /** The person Sign in with Slack's authorize page signs in from now on (default alice, UADMIN). */
    signInAs(user: string): void;
  };
  /** Workflow Builder step runs: started by the driver's `functionExecuted`, ended by the app's completion. */
  functions: {
    start(callbackId: string, inputs: Record<string, unknown>): FakeFunctionRun;
    run(executionId: string): FakeFunctionRun | undefined;
    runs(): FakeFunctionRun[];
    /**
     * A `user_context` input as Workflow Builder fills it from the trigger's "Person who used this workflow":
     * the person's id and a secret of Slack's own.
     */
    userContext(user: string): { id: string; secret: string };
  };
  /** The team a user belongs to (the stand-in's own unless the user was added with another). */
  userTeam(user: string): string;
  /** Socket Mode: the bot connects with `apps.connections.open` (an xapp- token) and a WebSocket here. */
  socket: FakeSocketMode;
  reset(): void;
  close(): Promise<void>;
}
