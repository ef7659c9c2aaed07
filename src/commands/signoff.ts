import type { Token } from '../actions/index.js';
import {
  channelSignoff,
  isSignoffPolicy,
  nameClientApprover,
  removeClientApprover,
  setSignoffPolicy,
} from '../bindings/index.js';
import { UserError, UserErrorCode } from '../requests/index.js';
import { buildSignoffChange, buildSignoffList, signoffLines } from '../views/signoff-settings.js';
import type { CommandContext, CommandSpec } from './command-context.js';
import { parseMention } from './tokenizer.js';

const USAGE = '/gateway signoff [add @person | remove @person | policy agency|client|both]';

function person(token: Token | undefined): string {
  const mention = token?.kind === 'word' ? parseMention(token.value) : undefined;
  if (mention?.kind !== 'user')
    throw new UserError(UserErrorCode.BadArguments, 'Whom? Name the person with an @-mention.', {
      usage: USAGE,
    });
  return mention.id;
}

/** Said in the channel, so the client sees who may sign off; an uninvited bot tells the admin alone. */
async function announce(ctx: CommandContext, line: string): Promise<void> {
  const message = buildSignoffChange(line);
  await ctx.post(message).catch(() => ctx.reply(message));
}

export const signoffCommand: CommandSpec = {
  name: 'signoff',
  usage: USAGE,
  summary: 'The client’s sign-off in a shared channel: its named approvers and the policy',
  example: '/gateway signoff',
  group: 'Jobs & approvals',
  adminOnly: 'name client approvers and set the sign-off policy',
  local: true,
  async run(ctx) {
    const binding = await ctx.binding();
    const [verb, target, ...rest] = ctx.args;
    const word = verb?.kind === 'word' ? verb.value.toLowerCase() : undefined;
    const change = { binding, by: ctx.user };
    if (!verb) {
      await ctx.reply(
        buildSignoffList({
          clientLabel: binding.clientLabel,
          signoff: await channelSignoff(ctx.services, binding),
        }),
      );
    } else if (word === 'add' && !rest.length) {
      const named = await nameClientApprover(ctx.services, { ...change, user: person(target) });
      await announce(ctx, signoffLines.named(ctx.user, named.userId, binding.clientLabel));
    } else if (word === 'remove' && !rest.length) {
      const user = person(target);
      if (!(await removeClientApprover(ctx.services, { ...change, user })))
        throw new UserError(UserErrorCode.BadArguments, `<@${user}> is not a client approver here.`, {
          hint: '`/gateway signoff` lists them.',
        });
      await announce(ctx, signoffLines.removed(ctx.user, user, binding.clientLabel));
    } else if (
      word === 'policy' &&
      target?.kind === 'word' &&
      isSignoffPolicy(target.value.toLowerCase()) &&
      !rest.length
    ) {
      const policy = target.value.toLowerCase() as Parameters<typeof setSignoffPolicy>[1]['policy'];
      await setSignoffPolicy(ctx.services, { ...change, policy });
      await announce(ctx, signoffLines.policy(ctx.user, policy));
    } else {
      throw new UserError(
        UserErrorCode.BadArguments,
        '`signoff` lists, adds or removes client approvers, or sets the policy.',
        {
          usage: USAGE,
        },
      );
    }
  },
};
