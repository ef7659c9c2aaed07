import type { FakeUser } from './fake-types.js';
import { fail, type MethodHandler, messageObject } from './method-context.js';

/** Identity and lookup methods: auth.test (Bolt calls it before any listener runs), users, conversations. */

const authTest: MethodHandler = (ctx) => ({
  ok: true,
  url: `https://${ctx.teamDomain}.slack.com/`,
  team: 'Local Workspace',
  user: 'gateway-bot',
  team_id: ctx.teamId,
  user_id: ctx.botUserId,
  bot_id: ctx.botId,
  is_enterprise_install: false,
});

const usersInfo: MethodHandler = (ctx, args) => {
  const id = String(args.user ?? '');
  const isBot = id === ctx.botUserId;
  const user: FakeUser | undefined = isBot
    ? { id, name: 'gateway-bot', real_name: 'Gateway Bot' }
    : ctx.state.user(id);
  if (!user) return fail('user_not_found');
  const realName = user.real_name ?? user.name;
  return {
    ok: true,
    user: {
      id: user.id,
      team_id: user.team_id ?? ctx.teamId,
      name: user.name,
      deleted: Boolean(user.deleted),
      is_restricted: Boolean(user.is_restricted || user.is_ultra_restricted),
      is_ultra_restricted: Boolean(user.is_ultra_restricted),
      ...(user.enterprise_teams ? { enterprise_user: { teams: [...user.enterprise_teams] } } : {}),
      real_name: realName,
      tz: user.tz ?? 'UTC',
      tz_label: user.tz ?? 'UTC',
      tz_offset: 0,
      is_admin: Boolean(user.is_admin),
      is_owner: false,
      is_bot: isBot,
      profile: {
        real_name: realName,
        display_name: user.name,
        real_name_normalized: realName,
        display_name_normalized: user.name,
      },
    },
  };
};

/** The members of a user group (usergroups:read). */
const userGroupUsers: MethodHandler = (ctx, args) => {
  const users = ctx.state.userGroups.get(String(args.usergroup ?? ''));
  if (!users) return fail('no_such_subteam');
  return { ok: true, users: [...users] };
};

/** The channels a person is a member of (one page: the stand-in's lists are small). */
const usersConversations: MethodHandler = (ctx, args) => {
  const user = String(args.user ?? '');
  if (!ctx.state.user(user)) return fail('user_not_found');
  const channels = [...ctx.state.channelMembers.entries()]
    .filter(([, members]) => members.has(user))
    .map(([id]) => ({ id, name: ctx.state.channel(id)?.name ?? id.toLowerCase(), is_member: true }));
  return { ok: true, channels, response_metadata: { next_cursor: '' } };
};

/** A channel's members (channels:read, groups:read), people of other workspaces in a shared channel included. */
const conversationsMembers: MethodHandler = (ctx, args) => {
  const ch = typeof args.channel === 'string' ? ctx.state.channel(args.channel) : undefined;
  if (!ch) return fail('channel_not_found');
  const members = [...(ctx.state.channelMembers.get(ch.id) ?? [])];
  return { ok: true, members, response_metadata: { next_cursor: '' } };
};

const conversationsInfo: MethodHandler = (ctx, args) => {
  const ch = typeof args.channel === 'string' ? ctx.state.channel(args.channel) : undefined;
  if (!ch) return fail('channel_not_found');
  return {
    ok: true,
    channel: {
      id: ch.id,
      name: ch.name,
      is_channel: ch.id.startsWith('C'),
      is_group: ch.id.startsWith('G'),
      is_im: ch.id.startsWith('D'),
      is_private: ch.id.startsWith('G'),
      is_archived: ch.archived ?? false,
      is_general: false,
      is_member: ch.botIsMember,
      created: 1_700_000_000,
    },
  };
};

const history: MethodHandler = (ctx, args) => {
  const ch = typeof args.channel === 'string' ? ctx.state.channel(args.channel) : undefined;
  if (!ch) return fail('channel_not_found');
  if (!ch.botIsMember) return fail('not_in_channel');
  const top = ctx.state.list(ch.id).filter((m) => !m.thread_ts || m.thread_ts === m.ts || m.broadcast);
  return { ok: true, messages: top.reverse().map((m) => messageObject(ctx, m)), has_more: false };
};

const replies: MethodHandler = (ctx, args) => {
  const ch = typeof args.channel === 'string' ? ctx.state.channel(args.channel) : undefined;
  if (!ch) return fail('channel_not_found');
  const ts = String(args.ts ?? '');
  const parent = ctx.state.find(ch.id, ts);
  if (!parent) return fail('thread_not_found');
  const thread = ctx.state.list(ch.id).filter((m) => m.thread_ts === ts && m.ts !== ts);
  return { ok: true, messages: [parent, ...thread].map((m) => messageObject(ctx, m)), has_more: false };
};

export const infoMethods: Record<string, MethodHandler> = {
  'api.test': () => ({ ok: true }),
  'auth.test': authTest,
  'users.info': usersInfo,
  'usergroups.users.list': userGroupUsers,
  'users.conversations': usersConversations,
  'conversations.info': conversationsInfo,
  'conversations.members': conversationsMembers,
  'conversations.history': history,
  'conversations.replies': replies,
};
