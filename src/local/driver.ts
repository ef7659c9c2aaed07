import { request } from 'undici';
import {
  type Actor,
  actionObject,
  type ButtonQuery,
  basePayload,
  findButton,
  functionEvent,
  isFakeView,
  messageObject,
} from './driver-payloads.js';
import type { FakeFunctionRun, FakeMessage, FakeSlack, FakeView } from './fake-slack/index.js';
import { signSlackRequest } from './signing.js';
import { buildStateValues, type InputValues } from './view-state.js';

export type { ButtonQuery } from './driver-payloads.js';
export { signSlackRequest } from './signing.js';

interface BaseDriverOptions {
  slack: FakeSlack;
  teamId?: string;
  appId?: string;
  /** Client timeout of one request; Slack itself gives up after 3 s, but a debugger needs longer. */
  timeoutMs?: number;
}

/** HTTP mode (the default): signed posts to the bot's events URL. */
export interface HttpDriverOptions extends BaseDriverOptions {
  transport?: 'http';
  /** The bot's http://127.0.0.1:PORT/slack/events. */
  eventsUrl: string;
  signingSecret: string;
}

/** Socket Mode: the same payloads as envelopes over the bot's WebSocket to the stand-in (`slack.socket`). */
interface SocketDriverOptions extends BaseDriverOptions {
  transport: 'socket';
}

export type DriverOptions = HttpDriverOptions | SocketDriverOptions;

export interface SentRequest {
  status: number;
  body: string;
  // biome-ignore lint/suspicious/noExplicitAny: the bot's ack body, whatever it is
  json?: any;
  headers: Record<string, string | string[] | undefined>;
  /** How long the bot took to answer (Slack shows an error after 3,000 ms). */
  elapsedMs: number;
}

/** The deprecated verification token Slack still puts in every payload. */
const VERIFICATION_TOKEN = 'local-verification-token';
const FORM = 'application/x-www-form-urlencoded';

/**
 * Plays Slack's side against a running bot: slash commands, button clicks, modal submissions and closes,
 * as signed HTTP posts (HTTP mode) or as Socket Mode envelopes, and applies the bot's acks the way Slack would.
 */
export class SlackDriver {
  private readonly slack: FakeSlack;
  private readonly teamId: string;
  private readonly appId: string;
  private lastSigned: { body: string; headers: Record<string, string> } | undefined;

  constructor(private readonly options: DriverOptions) {
    this.slack = options.slack;
    this.teamId = options.teamId ?? options.slack.teamId;
    this.appId = options.appId ?? options.slack.appId;
  }

  /** A slash command's fields as Slack sends them, with a fresh response URL and trigger id. */
  commandFields(
    text: string,
    as: { user: string; channel: string; command?: string },
  ): { fields: Record<string, string>; responseUrl: string; triggerId: string } {
    const responseUrl = this.slack.newResponseUrl(as.channel, as.user);
    const triggerId = this.slack.newTriggerId(as.user);
    const fields = {
      token: VERIFICATION_TOKEN,
      team_id: this.teamId,
      team_domain: this.slack.teamDomain,
      channel_id: as.channel,
      channel_name: this.slack.channelName(as.channel),
      user_id: as.user,
      user_name: this.slack.userName(as.user),
      command: as.command ?? '/gateway',
      text,
      api_app_id: this.appId,
      is_enterprise_install: 'false',
      response_url: responseUrl,
      trigger_id: triggerId,
    };
    return { fields, responseUrl, triggerId };
  }

  async command(
    text: string,
    as: { user: string; channel: string; command?: string },
  ): Promise<SentRequest & { responseUrl: string; triggerId: string }> {
    const { fields, responseUrl, triggerId } = this.commandFields(text, as);
    // Socket Mode carries the form's fields as a JSON object.
    const sent =
      this.options.transport === 'socket'
        ? await this.viaSocket('slash_commands', fields)
        : await this.signedPost(new URLSearchParams(fields).toString());
    if (sent.status === 200 && sent.body) {
      // A plain-text ack is shown as ephemeral text; a JSON one like a response_url message.
      const payload = typeof sent.json === 'object' && sent.json !== null ? sent.json : { text: sent.body };
      if (payload.text || payload.blocks)
        this.slack.recordResponse({ channel: as.channel, user: as.user }, payload, 'ack');
    }
    return { ...sent, responseUrl, triggerId };
  }

  /**
   * A button click's payload as Slack sends it (`block_actions`), with a fresh trigger id. `asShown`: on the
   * view exactly as given, even when it has been replaced since (a person whose client still shows an older
   * Home tab).
   */
  clickPayload(
    target: FakeMessage | FakeView,
    button: ButtonQuery,
    as: { user: string },
    options: { asShown?: boolean } = {},
  ): { payload: Record<string, unknown>; triggerId: string } {
    const actor = this.actor(as.user);
    const triggerId = this.slack.newTriggerId(as.user);
    const payload = basePayload(actor, 'block_actions', VERIFICATION_TOKEN);
    if (isFakeView(target)) {
      const view = options.asShown ? target : (this.slack.getView(target.id) ?? target);
      const found = findButton(view.view.blocks, button);
      Object.assign(payload, {
        container: { type: 'view', view_id: view.id },
        trigger_id: triggerId,
        view: view.view,
        state: { values: {} },
        actions: [actionObject(found)],
      });
    } else {
      const found = findButton(target.blocks, button);
      const ephemeral = Boolean(target.ephemeral);
      const responseUrl = this.slack.newResponseUrl(target.channel, as.user, { ts: target.ts, ephemeral });
      Object.assign(payload, {
        container: {
          type: 'message',
          message_ts: target.ts,
          channel_id: target.channel,
          is_ephemeral: ephemeral,
          ...(target.thread_ts ? { thread_ts: target.thread_ts } : {}),
        },
        trigger_id: triggerId,
        channel: { id: target.channel, name: this.slack.channelName(target.channel) },
        // Slack leaves the message out of clicks on ephemeral messages.
        ...(ephemeral ? {} : { message: messageObject(this.slack, target) }),
        state: { values: {} },
        response_url: responseUrl,
        actions: [actionObject(found)],
      });
    }
    return { payload, triggerId };
  }

  /** A click on a button of a message or a view (see clickPayload for `asShown`). */
  async click(
    target: FakeMessage | FakeView,
    button: ButtonQuery,
    as: { user: string },
    options: { asShown?: boolean } = {},
  ): Promise<SentRequest & { triggerId: string }> {
    const { payload, triggerId } = this.clickPayload(target, button, as, options);
    const sent = await this.interactive(payload);
    return { ...sent, triggerId };
  }

  async submit(view: FakeView, values: InputValues, as: { user: string }): Promise<SentRequest> {
    const current = this.slack.getView(view.id);
    if (!current) throw new Error(`driver: view ${view.id} is not open; it cannot be submitted`);
    const state = { values: buildStateValues(current.view.blocks, values) };
    const payload = {
      ...basePayload(this.actor(as.user), 'view_submission', VERIFICATION_TOKEN),
      trigger_id: this.slack.newTriggerId(as.user),
      view: { ...current.view, state },
      response_urls: [],
    };
    const sent = await this.interactive(payload);
    // Slack's client keeps the view open (with an error banner) unless the bot acked with 200.
    if (sent.status === 200) this.slack.applyViewResponse(current.id, sent.json ?? {});
    return sent;
  }

  /**
   * The user opens the bot's Home tab: `app_home_opened`, with the tab last published for them (none on a first
   * visit). `eventId`: send the same event again (Slack retries an event it thinks was not acked).
   */
  async homeOpened(as: { user: string; eventId?: string }): Promise<SentRequest & { eventId: string }> {
    const eventId =
      as.eventId ?? `Ev${Date.now().toString(36).toUpperCase()}${Math.floor(Math.random() * 1e6)}`;
    const home = this.slack.home(as.user);
    const now = Date.now() / 1000;
    const sent = await this.sendEvent(eventId, now, {
      type: 'app_home_opened',
      user: as.user,
      channel: `D${as.user.slice(1)}`,
      tab: 'home',
      event_ts: now.toFixed(6),
      ...(home ? { view: home.view } : {}),
    });
    return { ...sent, eventId };
  }

  /** An Events API envelope around `event`, sent over the driver's transport. */
  private sendEvent(eventId: string, now: number, event: Record<string, unknown>): Promise<SentRequest> {
    const body = {
      token: VERIFICATION_TOKEN,
      team_id: this.teamId,
      api_app_id: this.appId,
      type: 'event_callback',
      event_id: eventId,
      event_time: Math.floor(now),
      authorizations: [{ team_id: this.teamId, user_id: this.slack.botUserId, is_bot: true }],
      event,
    };
    return this.options.transport === 'socket'
      ? this.viaSocket('events_api', body)
      : this.signedPost(JSON.stringify(body), 'application/json');
  }

  /**
   * Slack tells the bot a person joined or left a channel (`member_joined_channel`, `member_left_channel`), as it
   * does for every channel the bot is in. The stand-in's membership itself is set with simulate.joinChannel.
   */
  async memberEvent(
    type: 'member_joined_channel' | 'member_left_channel',
    as: { user: string; channel: string },
  ): Promise<SentRequest> {
    const now = Date.now() / 1000;
    const eventId = `Ev${Date.now().toString(36).toUpperCase()}${Math.floor(Math.random() * 1e6)}`;
    return this.sendEvent(eventId, now, {
      type,
      user: as.user,
      channel: as.channel,
      channel_type: 'C',
      team: this.teamId,
      event_ts: now.toFixed(6),
    });
  }

  /** Workflow Builder runs a step (`function_executed`): a new run, or `again` the same one redelivered. */
  async functionExecuted(
    callbackId: string,
    inputs: Record<string, unknown>,
    again?: FakeFunctionRun,
  ): Promise<SentRequest & { run: FakeFunctionRun }> {
    const run = again ?? this.slack.functions.start(callbackId, inputs);
    const now = Date.now() / 1000;
    const sent = await this.sendEvent(`Ev${run.executionId}`, now, functionEvent(run, this.appId, now));
    return { ...sent, run };
  }

  /** The user closes a modal: Slack sends view_closed only when the view asked for it (notify_on_close). */
  async close(view: FakeView, as: { user: string }): Promise<SentRequest | undefined> {
    const current = this.slack.getView(view.id);
    if (!current) throw new Error(`driver: view ${view.id} is not open; it cannot be closed`);
    this.slack.applyViewResponse(current.id, current.view.clear_on_close ? { response_action: 'clear' } : {});
    if (!current.view.notify_on_close) return undefined;
    const payload = {
      ...basePayload(this.actor(as.user), 'view_closed', VERIFICATION_TOKEN),
      view: current.view,
      is_cleared: Boolean(current.view.clear_on_close),
    };
    return this.interactive(payload);
  }

  /**
   * Sends the last signed HTTP request again, byte for byte with its signature: what an attacker who captured
   * a click could replay within Slack's five-minute window.
   */
  replayLast(): Promise<SentRequest> {
    if (!this.lastSigned) throw new Error('driver: nothing was sent over HTTP to replay');
    return this.post(this.lastSigned.body, this.lastSigned.headers);
  }

  /** Sends a body with exactly the headers given: forged signatures, stale timestamps, odd content types. */
  raw(body: string, headers: Record<string, string>, contentType = FORM): Promise<SentRequest> {
    return this.post(body, { 'content-type': contentType, ...headers });
  }

  /** HTTP mode posts `payload=<json>`; Socket Mode sends the same object as an `interactive` envelope. */
  private interactive(payload: unknown): Promise<SentRequest> {
    if (this.options.transport === 'socket') return this.viaSocket('interactive', payload);
    return this.signedPost(new URLSearchParams({ payload: JSON.stringify(payload) }).toString());
  }

  /** An envelope acked over the WebSocket reads like a 200 whose body is the ack's payload (empty for `{}`). */
  private async viaSocket(
    type: 'slash_commands' | 'interactive' | 'events_api',
    payload: unknown,
  ): Promise<SentRequest> {
    const timeoutMs = this.options.timeoutMs;
    const ack = await this.slack.socket.send(type, payload, timeoutMs ? { timeoutMs } : {});
    const json = ack.ackPayload;
    const empty = typeof json !== 'object' || json === null || Object.keys(json).length === 0;
    return {
      status: 200,
      body: empty ? '' : JSON.stringify(json),
      json: empty ? undefined : json,
      headers: {},
      elapsedMs: ack.elapsedMs,
    };
  }

  private actor(user: string): Actor {
    return { user, slack: this.slack, appId: this.appId, teamId: this.teamId };
  }

  private signedPost(body: string, contentType = FORM): Promise<SentRequest> {
    const headers = { 'content-type': contentType, ...signSlackRequest(this.http().signingSecret, body) };
    this.lastSigned = { body, headers };
    return this.post(body, headers);
  }

  private http(): HttpDriverOptions {
    if (this.options.transport === 'socket')
      throw new Error('driver: raw HTTP posts need the http transport (eventsUrl and signingSecret)');
    return this.options;
  }

  private async post(body: string, headers: Record<string, string>): Promise<SentRequest> {
    const timeout = this.options.timeoutMs ?? 10_000;
    const started = performance.now();
    const res = await request(this.http().eventsUrl, {
      method: 'POST',
      headers,
      body,
      headersTimeout: timeout,
      bodyTimeout: timeout,
    });
    const text = await res.body.text();
    const elapsedMs = Math.round(performance.now() - started);
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.statusCode, body: text, json, headers: res.headers, elapsedMs };
  }
}
