import type { Reach } from '../access/index.js';
import { AccessError } from '../access/index.js';
import type { Caller } from '../assistant-calls.js';
import { isGatewayError, publicDetail } from '../gateway/index.js';
import { UserError } from '../requests/index.js';
import type { CoreServices } from '../services.js';
import type { CursorSigner } from './cursor.js';

export type { Caller };

export interface ToolContext {
  services: CoreServices;
  caller: Caller;
  cursors: CursorSigner;
  /** The caller's reach, read once per request (users.conversations is cached anyway). */
  reach(): Promise<Reach>;
  /** Gateway pages this call may still read (MCP_CALL_PAGES): a scan stops there and hands out a cursor. */
  pagesLeft(): number;
}

/** A refusal a tool answers as a tool error (isError), in the words a person reads in Slack. */
export class ToolRefusal extends Error {
  override readonly name = 'ToolRefusal';
}

/** A client the caller does not reach is answered exactly as one that does not exist. */
export const noSuchClient = (clientId: string) =>
  new ToolRefusal(`No client \`${clientId}\` is reachable with this token.`);

export async function requireClient(ctx: ToolContext, clientId: string): Promise<Reach> {
  const reach = await ctx.reach();
  if (!ctx.services.reach.reaches(reach, clientId)) throw noSuchClient(clientId);
  return reach;
}

export interface ToolAnswer {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** A result: the data as structured content, and the same as JSON text for clients that read text only. */
function answer(data: Record<string, unknown>): ToolAnswer {
  return { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data };
}

/** Runs a tool's work: its data as the answer, any failure as a tool error; counted either way. */
export async function answered(
  ctx: ToolContext,
  tool: string,
  work: () => Promise<Record<string, unknown>>,
): Promise<ToolAnswer> {
  try {
    const result = answer(await work());
    ctx.services.metrics.toolCalls.inc({ tool, outcome: 'ok' });
    return result;
  } catch (error) {
    ctx.services.metrics.toolCalls.inc({ tool, outcome: 'error' });
    return failure(error, (m, e) => ctx.services.logger.warn(m, e));
  }
}

/** Any failure as a tool error the assistant can read: never a stack, a key or the gateway's address. */
function failure(error: unknown, log: (message: string, error: unknown) => void): ToolAnswer {
  let text: string;
  if (error instanceof ToolRefusal) text = error.message;
  else if (error instanceof UserError || error instanceof AccessError)
    text = [error.title, error.options.hint].filter(Boolean).join(' ');
  else if (isGatewayError(error)) text = `The gateway refused or failed: ${publicDetail(error)}`;
  else {
    log('assistant tool failed', error);
    text = 'The tool failed on the bot’s side; try again in a minute.';
  }
  return { content: [{ type: 'text', text }], isError: true };
}
