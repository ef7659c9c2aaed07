import type { DigestKind, SubscriptionSettings } from '../digests/index.js';
import {
  askDigestNow,
  channelDigests,
  describeFilters,
  describeSchedule,
  nextRunAt,
} from '../digests/index.js';
import { notAdminError, UserError, UserErrorCode } from '../requests/index.js';
import { isNotInChannel } from '../slack/describe-error.js';
import { section } from '../views/blocks.js';
import { formatWhen } from '../views/digest-common.js';
import { buildDigestStatus } from '../views/digest-status.js';
import { buildIgnoredWords } from '../views/error-message.js';
import { escapeMrkdwn } from '../views/escape.js';
import { fitMessage } from '../views/limits.js';
import type { CommandContext, CommandSpec } from './command-context.js';
import { DIGEST_USAGE, parseDigestArgs } from './digest-args.js';

/** `/gateway digest …`: subscribe (admins), turn off (admins), `now` (anyone), `status`. */

const note = (text: string) => fitMessage({ text, blocks: [section(text)] });

async function postOrExplain(ctx: CommandContext, text: string): Promise<void> {
  try {
    await ctx.post(note(text));
  } catch (error) {
    if (!isNotInChannel(error)) throw error;
    throw new UserError(
      UserErrorCode.NotInChannel,
      'The digest is saved, but I am not a member of this channel, so I cannot post it here.',
      {
        hint: 'Invite me with `/invite @gateway`; the digest will then post here.',
      },
    );
  }
}

/** `daily at 08:00 (UTC), filters `min_change=5`` or `…, no filters`: a subscription in one phrase. */
function describeSubscription(sub: Pick<SubscriptionSettings, 'schedule' | 'tz' | 'filters'>): string {
  const filters = describeFilters(sub.filters);
  return `${escapeMrkdwn(describeSchedule(sub.schedule, sub.tz))}, ${filters ? `filters \`${escapeMrkdwn(filters)}\`` : 'no filters'}`;
}

/** `; next Tue 24 Nov, 07:00 GMT-6` for a daily or weekly schedule, from the schedule itself. */
function nextPhrase(sub: Pick<SubscriptionSettings, 'schedule' | 'tz'>): string {
  const next = nextRunAt(sub.schedule, sub.tz, Date.now());
  return next ? `; next ${escapeMrkdwn(formatWhen(new Date(next).toISOString(), sub.tz))}` : '';
}

/**
 * A subscription line replaces the channel's subscription of that kind whole: filters and `tz=` left out of
 * the new line are gone. So a change says what it was and what it is now, and what the new line dropped.
 */
async function subscribe(ctx: CommandContext, args: ReturnType<typeof parseDigestArgs>): Promise<void> {
  if (args.action !== 'subscribe') return;
  if (!ctx.isAdmin()) throw notAdminError('subscribe a channel to digests', ctx.services.access.admins());
  const binding = await ctx.binding();
  const tz = args.tz ?? ctx.services.config.digestTz;
  const previous = await ctx.services.digests.get(ctx.channel, args.kind);
  const settings: SubscriptionSettings = {
    channel: ctx.channel,
    kind: args.kind,
    schedule: args.schedule,
    tz,
    filters: args.filters,
    createdBy: ctx.user,
    createdAt: new Date().toISOString(),
  };
  await ctx.services.digests.save(settings);
  const now = describeSubscription(settings);
  const label = escapeMrkdwn(binding.clientLabel);
  if (!previous) {
    const first = (await ctx.services.digests.meta(ctx.channel, args.kind)) === undefined;
    await postOrExplain(
      ctx,
      `:calendar: <@${ctx.user}> subscribed this channel to the *${args.kind}* digest of ${label}, ${now}${nextPhrase(settings)}.${first ? ' The first one records a baseline; later ones list what changed, and nothing is posted when nothing did.' : ''}`,
    );
    return;
  }
  const was = describeSubscription(previous);
  const restarted = previous.stopped
    ? ` It had stopped (${escapeMrkdwn(previous.stopped.reason)}); it runs again from now.`
    : '';
  if (was === now) {
    await postOrExplain(
      ctx,
      `:calendar: <@${ctx.user}> kept the *${args.kind}* digest of ${label} as it was: ${now}${nextPhrase(settings)}.${restarted}`,
    );
    return;
  }
  const dropped: string[] = [];
  if (Object.keys(previous.filters).some((name) => !(name in args.filters))) dropped.push('filters');
  if (previous.tz !== tz && !args.tz) dropped.push('`tz=`');
  const hint = dropped.length
    ? ` A new \`digest ${args.kind} …\` line replaces the old one whole: name again the ${dropped.join(' and ')} you want to keep.`
    : '';
  await postOrExplain(
    ctx,
    `:calendar: <@${ctx.user}> changed the *${args.kind}* digest of ${label}: was ${was}; now ${now}${nextPhrase(settings)}.${hint}${restarted}`,
  );
}

async function turnOff(ctx: CommandContext, kind: DigestKind): Promise<void> {
  if (!ctx.isAdmin()) throw notAdminError('turn digests off', ctx.services.access.admins());
  const removed = await ctx.services.digests.remove(ctx.channel, kind);
  if (!removed) {
    throw new UserError(UserErrorCode.BadArguments, `This channel has no ${kind} digest to turn off.`, {
      hint: '`/gateway digest status` lists this channel’s digests.',
    });
  }
  await postOrExplain(ctx, `:no_bell: <@${ctx.user}> turned off the *${kind}* digest in this channel.`);
}

async function now(ctx: CommandContext, kind: DigestKind): Promise<void> {
  const binding = await ctx.binding();
  const outcome = await askDigestNow(ctx.services, {
    user: ctx.user,
    channel: ctx.channel,
    kind,
    request: ctx.triggerId,
    isAdmin: ctx.isAdmin(),
  });
  if (outcome.kind === 'on-its-way') {
    const who = outcome.by ? `, asked for by <@${outcome.by}>` : '';
    await ctx.reply(
      note(
        `:hourglass_flowing_sand: The ${kind} digest of this channel is already on its way${who}; it posts here in a moment, so I did not start another.`,
      ),
    );
    return;
  }
  await ctx.reply(
    note(
      `:hourglass_flowing_sand: Building the ${kind} digest of ${escapeMrkdwn(binding.clientLabel)}; it posts here in a moment (if nothing is new, I tell only you).`,
    ),
  );
}

export const digestCommand: CommandSpec = {
  name: 'digest',
  usage: DIGEST_USAGE,
  summary:
    'Scheduled digests of new reviews and ranking changes (admins); `digest now <kind>`, `digest status`',
  example: '/gateway digest rankings weekly mon 09:00 min_change=3 top=10',
  group: 'Digests',
  local: true,
  async run(ctx) {
    const args = parseDigestArgs(ctx.args);
    switch (args.action) {
      case 'status':
        await ctx.reply(buildDigestStatus(await channelDigests(ctx.services, ctx.channel)));
        if (args.ignored.length > 0) await ctx.reply(buildIgnoredWords('digest status', args.ignored));
        return;
      case 'now':
        await now(ctx, args.kind);
        return;
      case 'off':
        await turnOff(ctx, args.kind);
        return;
      case 'subscribe':
        await subscribe(ctx, args);
        return;
    }
  },
};
