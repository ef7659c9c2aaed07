import { UserError, UserErrorCode } from '../requests/index.js';
import type { MintOutcome } from '../tokens/index.js';
import { buildTokenList, buildTokenMinted, buildTokenRevoked } from '../views/token-messages.js';
import type { CommandContext, CommandSpec } from './command-context.js';

const USAGE = '/gateway mcp token [read] · /gateway mcp tokens · /gateway mcp revoke <id>';

/** The assistant-tool server's address, as a person's client reaches it. */
const mcpUrl = (ctx: CommandContext) => `${ctx.services.botUrl()}/mcp`;

/** Why no token was minted, with what to do about it. */
function mintRefusal(refused: Exclude<MintOutcome, { kind: 'minted' }>): UserError {
  if (refused.kind === 'too-many')
    return new UserError(
      UserErrorCode.BadArguments,
      `You have ${refused.active} active assistant tokens, the most one person may hold.`,
      { hint: '`/gateway mcp tokens` lists them; `/gateway mcp revoke <id>` revokes one you no longer use.' },
    );
  return new UserError(UserErrorCode.BadArguments, 'You minted several tokens a moment ago.', {
    hint: `Try again in ${refused.retryAfterSec} s; \`/gateway mcp tokens\` lists the ones you have.`,
  });
}

const words = (ctx: CommandContext) => ctx.args.map((t) => (t.kind === 'word' ? t.value.toLowerCase() : ''));

/**
 * `/gateway mcp …`: assistant-tool tokens. Anyone the bot serves (guests and other workspaces' people are
 * refused before any command) mints their own; admins list and revoke everyone's. Answers are ephemeral.
 */
export const assistantTokensCommand: CommandSpec = {
  name: 'mcp',
  usage: USAGE,
  summary:
    'Assistant-tool tokens: mint one (shown once; `read` for read-only), list yours (and assistants you signed in to), revoke one',
  example: '/gateway mcp token',
  group: 'Setup',
  local: true,
  async run(ctx) {
    const [sub, ...rest] = words(ctx);
    const { tokens, access, config } = ctx.services;
    if (sub === 'token' && (rest.length === 0 || (rest.length === 1 && rest[0] === 'read'))) {
      const minted = await tokens.mint({
        user: ctx.user,
        team: await access.homeTeam(),
        scope: rest[0] === 'read' ? 'read' : 'write',
        ttlMs: config.mcp.tokenTtlMs,
      });
      if (minted.kind !== 'minted') throw mintRefusal(minted);
      const { secret, token } = minted;
      ctx.logger.info(`assistant token ${token.id} minted by ${ctx.user} (${token.scope})`);
      await ctx.reply(buildTokenMinted({ url: mcpUrl(ctx), secret, token }));
      return;
    }
    if (sub === 'tokens' && rest.length === 0) {
      const everyone = ctx.isAdmin();
      // Tokens minted here and grants given by signing in from an assistant, in one list.
      const listed = await ctx.services.tokens.list(everyone ? undefined : ctx.user);
      await ctx.reply(buildTokenList(listed, everyone));
      return;
    }
    const id = rest[0];
    if (sub === 'revoke' && id && rest.length === 1) {
      const token = await ctx.services.tokens.revokeAs(id, ctx.user, ctx.isAdmin());
      if (!token)
        throw new UserError(UserErrorCode.BadArguments, `You have no active token \`${id}\`.`, {
          hint: '`/gateway mcp tokens` lists them with their ids.',
        });
      ctx.logger.info(`assistant ${token.kind} ${token.id} revoked by ${ctx.user}`);
      await ctx.reply(buildTokenRevoked(token, ctx.user));
      return;
    }
    throw new UserError(UserErrorCode.BadArguments, 'Which `mcp` command?', { usage: USAGE });
  },
};
