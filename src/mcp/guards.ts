import type { IncomingMessage } from 'node:http';

/**
 * The HTTP checks in front of the assistant-tool server: DNS-rebinding protection (Host and Origin against an
 * allow-list) and the body cap (the rate limit: rate.ts).
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
