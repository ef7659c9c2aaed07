import { bindChannel, findClient } from '../bindings/index.js';
import { channelDigests } from '../digests/index.js';
import { GatewayErrorCode, isGatewayError, publicDetail } from '../gateway/index.js';
import { UserError, UserErrorCode } from '../requests/index.js';
import { digestLine } from '../views/digest-status.js';
import { buildAlreadyBound, buildRebindQuestion, buildStatus } from '../views/status.js';
import type { CommandSpec } from './command-context.js';
import { replyClientRoster } from './read-commands.js';

const clientsCommand: CommandSpec = {
  name: 'clients',
  usage: '/gateway clients',
  summary: 'Clients the agency key reaches',
  example: '/gateway clients',
  group: 'Setup',
  adminOnly: 'list the agency’s clients',
  takesNoArguments: true,
  async run(ctx) {
    await replyClientRoster(ctx, { limit: 20, offset: 0 });
  },
};

const useCommand: CommandSpec = {
  name: 'use',
  usage: '/gateway use <client_id>',
  summary: 'Binds this channel to a client',
  example: '/gateway use acme-plumbing',
  group: 'Setup',
  adminOnly: 'bind a channel to a client',
  async run(ctx) {
    const [first] = ctx.args;
    if (first?.kind !== 'word' || ctx.args.length > 1) {
      throw new UserError(UserErrorCode.BadArguments, '`use` takes one client id.', {
        usage: this.usage,
        hint: '`/gateway clients` lists the ids.',
      });
    }
    const clientId = first.value;
    const current = await ctx.services.bindings.get(ctx.channel);
    if (current?.clientId.toLowerCase() === clientId.toLowerCase()) {
      // Nothing changes, so nothing is announced in the channel again.
      await ctx.reply(buildAlreadyBound({ clientLabel: current.clientLabel, clientId: current.clientId }));
      return;
    }
    const client = await findClient(ctx.services, clientId);
    if (current) {
      // Another client's data would start to show here, and its digests and jobs stay with the channel: ask.
      await ctx.reply(buildRebindQuestion({ current, next: client }));
      return;
    }
    await bindChannel(ctx.services, { channel: ctx.channel, user: ctx.user, ...client }, ctx.post);
  },
};

/** What `status` says when the key cannot read the client: advice for 401/403, never the gateway's address. */
function reachProblem(error: unknown): string {
  if (!isGatewayError(error)) return 'the gateway could not be asked';
  if (error.code === GatewayErrorCode.Unauthorized || error.code === GatewayErrorCode.Forbidden) {
    // The gateway's words, not the message: one built here names the gateway's address.
    return `${publicDetail(error)} ${error.advice ?? ''}`.trim();
  }
  return `the gateway is not answering (${error.status ? `HTTP ${error.status}` : error.code.replace('gateway_', '')} at ${error.at})`;
}

const statusCommand: CommandSpec = {
  name: 'status',
  usage: '/gateway status',
  summary: 'This channel’s client, whether the key reaches it, its digests and its jobs',
  example: '/gateway status',
  group: 'Setup',
  takesNoArguments: true,
  async run(ctx) {
    const binding = await ctx.services.bindings.get(ctx.channel);
    let reach: 'ok' | string = 'ok';
    if (binding) {
      try {
        await ctx.services.gateway.read('locations', { clientId: binding.clientId, limit: 1 });
      } catch (error) {
        reach = reachProblem(error);
      }
    }
    const jobs = binding ? (await ctx.services.queue.channelJobs(ctx.channel, 50)).jobs : [];
    const digests = (await channelDigests(ctx.services, ctx.channel)).map(digestLine);
    await ctx.reply(buildStatus({ binding, reach, jobs, digests }));
  },
};

export const setupCommands: CommandSpec[] = [clientsCommand, useCommand, statusCommand];
