import type { ChannelBinding } from '../bindings/index.js';
import { channelDigests } from '../digests/index.js';
import type { CoreServices } from '../services.js';
import { HOME_SHOWN, type HomeChannel } from '../views/home.js';

type ChannelDeps = Pick<CoreServices, 'reach' | 'bindings' | 'digests' | 'digestQueue'>;

/**
 * A member's bound channels: those they are a member of (users.conversations, cached in access/), and those
 * their own jobs and requests on this tab already name. Should Slack not answer, the latter alone.
 */
async function memberChannels(services: ChannelDeps, user: string, used: readonly string[]) {
  const reach = await services.reach.of(user).catch(() => undefined);
  const member = [...(reach?.channels.values() ?? [])].flat();
  const known = new Set(member.map((b) => b.channel));
  const others = (
    await Promise.all([...new Set(used)].filter((c) => !known.has(c)).map((c) => services.bindings.get(c)))
  ).filter((b) => b !== undefined);
  return [...member, ...others];
}

/**
 * The channels a person's overview lists, each with its digests: an admin's are every binding (`all`, read by
 * the caller), a member's those of memberChannels.
 */
export async function channelRows(
  services: ChannelDeps,
  user: string,
  all: ChannelBinding[] | undefined,
  used: readonly string[],
): Promise<{ rows: HomeChannel[]; total: number }> {
  const bound = all ?? (await memberChannels(services, user, used));
  const rows: HomeChannel[] = await Promise.all(
    bound.slice(0, HOME_SHOWN.channels).map(async (b) => ({
      channel: b.channel,
      clientId: b.clientId,
      clientLabel: b.clientLabel,
      digests: await channelDigests(services, b.channel),
    })),
  );
  return { rows, total: bound.length };
}
