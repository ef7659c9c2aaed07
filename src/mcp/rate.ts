import type { Redis } from '../redis/connection.js';

/**
 * MCP_RATE, per token and per person: a fixed window in Redis shared by every process, one count per JSON-RPC
 * message (a tool call, a `tools/list`, an `initialize` alike). A person holding several tokens shares one
 * allowance across them, so minting more tokens buys no more calls.
 */

export type RateVerdict = { ok: true } | { ok: false; retryAfterSec: number; who: 'token' | 'person' };

export async function takeMessage(
  redis: Redis,
  prefix: string,
  who: { tokenId: string; user: string },
  rate: { max: number; windowMs: number },
): Promise<RateVerdict> {
  const now = Date.now();
  const window = Math.floor(now / rate.windowMs);
  const tokenKey = `${prefix}:mcp:rate:${who.tokenId}:${window}`;
  const personKey = `${prefix}:mcp:rate:person:${who.user}:${window}`;
  const replies = (await redis
    .multi()
    .incr(tokenKey)
    .pexpire(tokenKey, rate.windowMs)
    .incr(personKey)
    .pexpire(personKey, rate.windowMs)
    .exec()) as [unknown, number][];
  const byToken = replies[0]?.[1] ?? 0;
  const byPerson = replies[2]?.[1] ?? 0;
  if (byToken <= rate.max && byPerson <= rate.max) return { ok: true };
  const retryAfterSec = Math.max(1, Math.ceil(((window + 1) * rate.windowMs - now) / 1_000));
  return { ok: false, retryAfterSec, who: byToken > rate.max ? 'token' : 'person' };
}

/** A body the server takes: one JSON-RPC message. Batches (an array) were removed in the 2025-06-18 revision. */
export function isBatch(body: unknown): boolean {
  return Array.isArray(body);
}
