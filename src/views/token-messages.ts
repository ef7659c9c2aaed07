import type { AssistantToken } from '../store/assistant-token-store.js';
import type { AssistantCredential } from '../tokens/index.js';
import { type KnownBlock, type SlackMessage, section } from './blocks.js';
import { code, escapeMrkdwn, oneLine } from './escape.js';
import { packSections, truncate } from './limits.js';

/** The ephemeral answers of `/gateway mcp …`: a new token (shown once), the list, a revocation. */

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** A client's self-declared name, cut: it must not crowd out the rest of a list. */
export const clientLabel = (name: string | undefined) =>
  escapeMrkdwn(truncate(oneLine(name ?? 'an assistant'), 60));

/** The person's new token, with the endpoint and how to add both to the common assistant clients. */
export function buildTokenMinted(input: {
  url: string;
  secret: string;
  token: AssistantToken;
}): SlackMessage {
  const { url, secret, token } = input;
  const scope = token.scope === 'read' ? 'read-only (the read tools)' : 'read and act';
  const blocks: KnownBlock[] = [
    section(
      `🔑 *Your assistant-tool token* (${scope}, id ${code(token.id)}, expires ${day(token.expiresAt)}). It is shown this once: copy it now.`,
    ),
    section(`*Endpoint:* ${code(url)}\n*Token:* ${code(secret)}`),
    section(
      [
        '*Claude Code:* ' +
          code(`claude mcp add --transport http gateway ${url} --header "Authorization: Bearer ${secret}"`),
        `*Cursor* (\`.cursor/mcp.json\`): ${code(JSON.stringify({ mcpServers: { gateway: { url, headers: { Authorization: `Bearer ${secret}` } } } }))}`,
        `*MCP Inspector* (Node 22 or later): ${code(`npx @modelcontextprotocol/inspector --cli ${url} --transport http --header "Authorization: Bearer ${secret}" --method tools/list`)}; on Node 20, the SDK client in the bot's ${code('docs/examples/mcp-client.mjs')}`,
      ].join('\n'),
    ),
    section(
      'The assistant acts as you: it reaches the clients of the channels you are in, deploys and emails wait for an approver in Slack. `/gateway mcp tokens` lists your tokens, `/gateway mcp revoke &lt;id&gt;` revokes one.',
    ),
  ];
  return { text: `Your assistant-tool token (id ${token.id}) and its endpoint ${url}`, blocks };
}

/** A token, or an assistant signed in to: who it is for, what it may do, since when, until when, last used. */
function credentialLine(t: AssistantCredential, everyone: boolean): string {
  const scope = t.scope === 'read' ? 'read-only' : 'read and act';
  const who = everyone ? `<@${t.user}> ` : '';
  if (t.kind === 'token')
    return `${code(t.id)} ${who}${scope}, made ${day(t.createdAt)}, expires ${day(t.expiresAt)}`;
  const used = t.lastUsedAt ? `, last used ${day(t.lastUsedAt)}` : ', not used yet';
  return `${code(t.id)} ${clientLabel(t.clientName)} (signed in) ${who}${scope}, since ${day(t.createdAt)}${used}, until ${day(t.expiresAt)}`;
}

export function buildTokenList(tokens: readonly AssistantCredential[], everyone: boolean): SlackMessage {
  if (tokens.length === 0) {
    const text = everyone
      ? 'No assistant-tool tokens are active.'
      : 'You have no active assistant-tool tokens.';
    return { text, blocks: [section(`${text} \`/gateway mcp token\` mints one.`)] };
  }
  const shown = tokens.slice(0, 40);
  const lines = shown.map((t) => credentialLine(t, everyone));
  const more = tokens.length - shown.length;
  const head = everyone
    ? '*Active assistant-tool tokens (everyone’s)*'
    : '*Your active assistant-tool tokens*';
  const blocks: KnownBlock[] = packSections([head, ...lines]).map((text) => section(text));
  if (more > 0) blocks.push(section(`…and ${more} more not shown.`));
  return { text: `${tokens.length} active assistant-tool token${tokens.length === 1 ? '' : 's'}`, blocks };
}

export function buildTokenRevoked(token: AssistantCredential, by: string): SlackMessage {
  const what = token.kind === 'grant' ? `sign-in of ${clientLabel(token.clientName)}` : 'token';
  const whose = token.user === by ? `Your ${what}` : `<@${token.user}>’s ${what}`;
  const text = `${whose} ${code(token.id)} is revoked: assistants using it are refused from now on.`;
  return { text, blocks: [section(`:no_entry_sign: ${text}`)] };
}
