import type { AddressInfo } from 'node:net';
import { ChannelPace } from './channel-pace.js';
import type { FakeCall, FakeMessage, FakeSlack, FakeSlackOptions, WaitForOptions } from './fake-types.js';
import { startFunctionRun } from './function-methods.js';
import { createFakeSlackServer } from './http-server.js';
import { newTriggerValue, randomId } from './ids.js';
import type { MethodContext } from './method-context.js';
import { createOpenId } from './openid.js';
import { applyViewResponse, recordResponse } from './slack-responses.js';
import { createSocketModeHub } from './socket-mode.js';
import { FakeState } from './state.js';

export { validateBlocks, validateView } from './block-kit-limits.js';
export type * from './fake-types.js';
export { FakeSocketError } from './socket-mode.js';

const TRIGGER_TTL_MS = 3_000;
const RESPONSE_URL_TTL_MS = 30 * 60_000;

function describeCall(call: FakeCall): string {
  const text =
    typeof call.args.text === 'string' ? ` text=${JSON.stringify(call.args.text.slice(0, 80))}` : '';
  const channel = typeof call.args.channel === 'string' ? ` channel=${call.args.channel}` : '';
  return `  ${call.method} ${call.ok ? 'ok' : `error=${call.error}`}${channel}${text}`;
}

/** Starts the local Slack stand-in: a Web API, response URLs and triggers on a loopback port. */
export async function startFakeSlack(options: FakeSlackOptions = {}): Promise<FakeSlack> {
  const state = new FakeState(options);
  state.events.setMaxListeners(0);
  const botToken = options.botToken ?? 'xoxb-standin';
  const ctx: MethodContext = {
    state,
    origin: '',
    teamId: options.teamId ?? 'T0LOCAL',
    teamDomain: options.teamDomain ?? 'local-workspace',
    botUserId: options.botUserId ?? 'UBOT',
    botId: options.botId ?? 'B0LOCAL',
    appId: options.appId ?? 'A0LOCAL',
    triggerTtlMs: options.triggerTtlMs ?? TRIGGER_TTL_MS,
    appToken: options.appToken,
  };
  const socketMode = createSocketModeHub(ctx);
  const openId = await createOpenId(ctx, {
    clientId: options.clientId ?? 'standin.client',
    clientSecret: options.clientSecret ?? 'standin-client-secret',
  });
  const server = createFakeSlackServer(ctx, botToken, socketMode, openId);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  ctx.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const responseUrlTtlMs = options.responseUrlTtlMs ?? RESPONSE_URL_TTL_MS;
  const isTopLevel = (m: FakeMessage) => !m.thread_ts || m.thread_ts === m.ts || Boolean(m.broadcast);

  const slack: FakeSlack = {
    apiUrl: `${ctx.origin}/api/`,
    origin: ctx.origin,
    clientId: openId.clientId,
    clientSecret: openId.clientSecret,
    botToken,
    teamId: ctx.teamId,
    teamDomain: ctx.teamDomain,
    botUserId: ctx.botUserId,
    botId: ctx.botId,
    appId: ctx.appId,
    calls: state.calls,
    messages: (channel) => (state.channelMessages.get(channel) ?? []).filter(isTopLevel),
    thread: (channel, threadTs) =>
      (state.channelMessages.get(channel) ?? []).filter((m) => m.thread_ts === threadTs && m.ts !== threadTs),
    ephemerals: (channel, user) =>
      state.ephemeralMessages.filter((m) => m.channel === channel && (!user || m.forUser === user)),
    views: (user) => {
      const users = user ? [user] : [...state.stacks.keys()];
      return users.flatMap((u) =>
        state
          .stack(u)
          .map((id) => state.views.get(id))
          .filter((v) => v !== undefined),
      );
    },
    findMessage: (pred) =>
      [...state.channelMessages.values()].flat().find(pred) ?? state.ephemeralMessages.find(pred),
    waitFor: (probe, opts) => waitFor(state, probe, opts),
    newResponseUrl: (channel, user, source) => {
      const id = randomId('R', 16);
      state.responseUrls.set(id, {
        channel,
        user,
        source,
        expiresAt: Date.now() + responseUrlTtlMs,
        uses: 0,
      });
      return `${ctx.origin}/response/${id}`;
    },
    newTriggerId: (user = '') => {
      const id = newTriggerValue();
      state.triggers.set(id, { user, expiresAt: Date.now() + ctx.triggerTtlMs, used: false });
      return id;
    },
    recordResponse: (target, payload, via) => {
      const outcome = recordResponse(ctx, target, payload, via);
      // Acks do not pass through the HTTP routes; record them so call dumps show what the bot answered.
      if (via === 'ack') {
        const args = { ...payload, channel: target.channel, user: target.user } as Record<string, unknown>;
        state.record({ method: 'ack', args, at: Date.now(), ok: outcome.ok, error: outcome.error });
      } else state.changed();
      return outcome;
    },
    getView: (viewId) => state.views.get(viewId),
    file: (id) => state.files.get(id),
    files: () => [...state.files.values()],
    home: (user) => {
      const id = state.homes.get(user);
      return id ? state.views.get(id) : undefined;
    },
    applyViewResponse: (viewId, body) => {
      const outcome = applyViewResponse(ctx, viewId, body);
      state.changed();
      return outcome;
    },
    channelName: (channel) => state.channel(channel)?.name ?? channel.toLowerCase(),
    userName: (user) => state.users.get(user)?.name ?? user.toLowerCase(),
    simulate: {
      ratelimit: (method, count = 1, retryAfterSec = 1) =>
        state.rateLimits.set(method, { remaining: count, retryAfterSec }),
      pace: (pace) => {
        state.pace = pace ? new ChannelPace(pace) : undefined;
      },
      outage: (methods, mode = 'error') => {
        for (const method of methods) state.outages.set(method, mode);
      },
      restore: () => state.outages.clear(),
      removeBotFrom: (channel) => setMembership(state, channel, false),
      archive: (channel) => {
        const ch = state.channel(channel);
        if (!ch) throw new Error(`fake-slack: no channel ${channel}`);
        ch.archived = true;
        state.changed();
      },
      addBotTo: (channel) => setMembership(state, channel, true),
      addUser: (user) => {
        state.users.set(user.id, { ...user });
        state.changed();
      },
      setUserGroup: (groupId, userIds) => {
        state.userGroups.set(groupId, [...userIds]);
        state.changed();
      },
      joinChannel: (channel, user) => {
        const members = state.channelMembers.get(channel) ?? new Set<string>();
        members.add(user);
        state.channelMembers.set(channel, members);
        state.changed();
      },
      leaveChannel: (channel, user) => {
        state.channelMembers.get(channel)?.delete(user);
        state.changed();
      },
      signInAs: (user) => openId.signInAs(user),
    },
    functions: {
      start: (callbackId, inputs) => {
        const run = startFunctionRun(ctx, callbackId, inputs);
        state.changed();
        return run;
      },
      run: (id) => state.functionRuns.get(id),
      runs: () => [...state.functionRuns.values()],
      userContext: (user) => ({ id: user, secret: randomId('', 32).toLowerCase() }),
    },
    userTeam: (user) => state.users.get(user)?.team_id ?? ctx.teamId,
    socket: {
      connected: () => socketMode.connected(),
      send: (type, payload, opts) => socketMode.send(type, payload, opts),
    },
    reset: () => state.reset(),
    close: () =>
      new Promise<void>((resolve, reject) => {
        // Upgraded sockets are no longer the HTTP server's to close; without this close() would wait on them.
        socketMode.closeAll();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
  return slack;
}

function setMembership(state: FakeState, channel: string, member: boolean): void {
  const ch = state.channel(channel);
  if (!ch) throw new Error(`fake-slack: no channel ${channel}`);
  ch.botIsMember = member;
}

/**
 * Resolves with the probe's first truthy value; re-probes on every state change and every 20 ms. The default
 * deadline is generous (10 s): it is what a loaded CI machine needs for a page of 100,000 keyword rows, and a
 * wait that succeeds returns as soon as its condition holds.
 */
function waitFor<T>(
  state: FakeState,
  probe: () => T | undefined | false | null,
  opts: WaitForOptions = {},
): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  return new Promise<T>((resolve, reject) => {
    const done = (fn: () => void) => {
      clearInterval(poll);
      clearTimeout(deadline);
      state.events.off('change', check);
      fn();
    };
    function check(): void {
      try {
        const value = probe();
        // A promise is truthy at once: an async probe would end the wait before its condition held.
        if (value instanceof Promise) throw new Error('waitFor takes a synchronous probe, not a promise');
        if (value) done(() => resolve(value));
      } catch (error) {
        done(() => reject(error));
      }
    }
    const poll = setInterval(check, 20);
    const deadline = setTimeout(() => {
      const recent = state.calls.slice(-15).map(describeCall).join('\n') || '  (no calls)';
      done(() =>
        reject(
          new Error(
            `fake-slack waitFor timed out after ${timeoutMs} ms waiting for ${opts.what ?? 'a condition'}\nrecent calls:\n${recent}`,
          ),
        ),
      );
    }, timeoutMs);
    state.events.on('change', check);
    check();
  });
}
