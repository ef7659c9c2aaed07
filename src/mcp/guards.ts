import type { IncomingMessage } from 'node:http';
import type { Redis } from '../redis.js';

/**
 * The HTTP checks in front of the assistant-tool server: DNS-rebinding protection (Host and Origin against an
 * allow-list), the body cap, and the per-token rate limit on tool calls.
 */

/** A host name from a Host header or an Origin URL, lower case, without its port (IPv6 in brackets). */
function hostName(value: string, isOrigin: boolean): string | undefined {
  try {
    return new URL(isOrigin ? value : `http://${value}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/** Why a request's Host or Origin is refused, or undefined when both are allowed (no Origin is fine). */
export function rebindingRefusal(req: IncomingMessage, allowed: readonly string[]): string | undefined {
  const host = hostName(req.headers.host ?? '', false);
  if (!host || !allowed.includes(host)) return 'Host not allowed';
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== 'null') {
    const name = hostName(origin, true);
    if (!name || !allowed.includes(name)) return 'Origin not allowed';
  } else if (origin === 'null') return 'Origin not allowed';
  return undefined;
}

export class BodyTooLarge extends Error {
  override readonly name = 'BodyTooLarge';
}

/** The request body, at most `maxBytes` (a longer one is refused before it is all read). */
export async function readBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > maxBytes) throw new BodyTooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > maxBytes) throw new BodyTooLarge();
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** How many JSON-RPC `tools/call` requests a body holds (a batch may hold several). */
export function toolCalls(body: unknown): number {
  const messages = Array.isArray(body) ? body : [body];
  return messages.filter(
    (m) => m && typeof m === 'object' && (m as { method?: unknown }).method === 'tools/call',
  ).length;
}

/**
 * A fixed window per token in Redis, shared by every web process: `calls` more tool calls are allowed, or the
 * seconds to wait until the window ends.
 */
export async function takeCalls(
  redis: Redis,
  prefix: string,
  tokenId: string,
  calls: number,
  rate: { max: number; windowMs: number },
): Promise<{ ok: true } | { ok: false; retryAfterSec: number }> {
  if (calls === 0) return { ok: true };
  const now = Date.now();
  const window = Math.floor(now / rate.windowMs);
  const key = `${prefix}:mcp:rate:${tokenId}:${window}`;
  const [[, used]] = (await redis.multi().incrby(key, calls).pexpire(key, rate.windowMs).exec()) as [
    [unknown, number],
  ];
  if (used <= rate.max) return { ok: true };
  const retryAfterSec = Math.max(1, Math.ceil(((window + 1) * rate.windowMs - now) / 1_000));
  return { ok: false, retryAfterSec };
}
