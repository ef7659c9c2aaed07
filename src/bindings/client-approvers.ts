import { UserError, UserErrorCode } from '../requests/index.js';
import type { CoreServices } from '../services.js';
import type { ChannelBinding } from './binding-store.js';
import type { ChannelSignoff, ClientApprover, SignoffPolicy } from './signoff-store.js';

/**
 * Naming a client's approvers in the channel shared with the client (Slack Connect), and the channel's sign-off
 * policy. Admins only (the command router checks it). A client approver is a person of another workspace, in the
 * channel, recorded with their workspace from users.info: the agency's own people are approvers through
 * GATEWAY_APPROVERS instead.
 */

type Deps = Pick<CoreServices, 'access' | 'signoffs'>;

export interface SignoffChange {
  binding: ChannelBinding;
  by: string;
}

export function channelSignoff(deps: Deps, binding: ChannelBinding): Promise<ChannelSignoff> {
  return deps.signoffs.get(binding.channel, binding.clientId);
}

export async function nameClientApprover(
  deps: Deps,
  change: SignoffChange & { user: string },
): Promise<ClientApprover> {
  const approver = await checkedApprover(deps, change);
  await deps.signoffs.add(change.binding.channel, approver);
  return approver;
}

/** A person who may be named a client approver here, as they would be recorded; else the UserError that says why not. */
async function checkedApprover(
  deps: Deps,
  change: SignoffChange & { user: string },
): Promise<ClientApprover> {
  const { binding, user } = change;
  const { home, teams } = await deps.access.workspaceOf(user);
  const [teamId] = teams;
  if (home || !teamId)
    throw new UserError(UserErrorCode.BadArguments, `<@${user}> is one of the agency’s own people.`, {
      hint: 'Agency people approve as agency approvers: name them in GATEWAY_APPROVERS. `signoff add` names people of the client’s workspace.',
    });
  if (!(await deps.access.inChannel(user, binding.channel)))
    throw new UserError(UserErrorCode.BadArguments, `<@${user}> is not in this channel.`, {
      hint: 'A client approver signs off on the cards in this shared channel: invite them here first, then name them again.',
    });
  return { userId: user, teamId, clientId: binding.clientId, addedBy: change.by, addedAt: Date.now() };
}

/**
 * `client` and `both` ask the client's sign-off, so they stand only while the channel names a client approver:
 * a person of the client's workspace, in the channel, which Slack allows only in a channel shared with the
 * client. Without one, an admin's waiver would be the only click a request needed.
 */
const needsClientApprover = (policy: SignoffPolicy) => policy !== 'agency';

const noClientApprover = (policy: SignoffPolicy) =>
  new UserError(
    UserErrorCode.BadArguments,
    `Sign-off \`${policy}\` needs a client approver named in this channel.`,
    {
      hint: 'The client signs off in a channel shared with them through Slack Connect: name a person of the client’s workspace here with `/gateway signoff add @person`, then set the policy. Until then the agency approves (`agency`).',
    },
  );

const lastClientApprover = (user: string, policy: SignoffPolicy) =>
  new UserError(
    UserErrorCode.BadArguments,
    `<@${user}> is this channel’s last client approver, and its sign-off is \`${policy}\`.`,
    {
      hint: 'Name another client approver first, or set `/gateway signoff policy agency`, then remove them.',
    },
  );

/**
 * False when the person was not named here. Requests asked for before keep their frozen approvers, but a removed
 * one's click is refused. The last one is not removed while the policy needs a client approver.
 */
export async function removeClientApprover(
  deps: Deps,
  change: SignoffChange & { user: string },
): Promise<boolean> {
  const now = await channelSignoff(deps, change.binding);
  const last = now.approvers.length === 1 && now.approvers[0]?.userId === change.user;
  if (last && needsClientApprover(now.policy)) throw lastClientApprover(change.user, now.policy);
  return deps.signoffs.remove(change.binding.channel, change.user);
}

export async function setSignoffPolicy(
  deps: Deps,
  change: SignoffChange & { policy: SignoffPolicy },
): Promise<void> {
  if (needsClientApprover(change.policy)) {
    const now = await channelSignoff(deps, change.binding);
    if (now.approvers.length === 0) throw noClientApprover(change.policy);
  }
  await deps.signoffs.setPolicy(change.binding.channel, change.policy);
}

/** What one edit of the channel's sign-off changed. */
export interface SignoffEdit {
  /** The new policy, when it changed. */
  policy?: SignoffPolicy;
  named: string[];
  removed: string[];
}

/**
 * The channel settings' edit: the policy and the whole list of client approvers at once. All or nothing: every
 * newly named person is checked (another workspace, in the channel) before anything is saved, so a refusal loses
 * nothing of what stood.
 */
export async function editSignoff(
  deps: Deps,
  change: SignoffChange & { policy: SignoffPolicy; approvers: readonly string[] },
): Promise<SignoffEdit> {
  const { binding } = change;
  const now = await channelSignoff(deps, binding);
  const had = new Set(now.approvers.map((a) => a.userId));
  const wanted = new Set(change.approvers);
  const added: ClientApprover[] = [];
  for (const user of wanted) if (!had.has(user)) added.push(await checkedApprover(deps, { ...change, user }));
  const removed = [...had].filter((user) => !wanted.has(user));
  if (needsClientApprover(change.policy) && wanted.size === 0) throw noClientApprover(change.policy);
  if (change.policy !== now.policy) await deps.signoffs.setPolicy(binding.channel, change.policy);
  for (const approver of added) await deps.signoffs.add(binding.channel, approver);
  for (const user of removed) await deps.signoffs.remove(binding.channel, user);
  return {
    ...(change.policy !== now.policy ? { policy: change.policy } : {}),
    named: added.map((a) => a.userId),
    removed,
  };
}
