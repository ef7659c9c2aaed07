import { IncomingMessage, type ServerResponse } from 'node:http';
import type { Config } from '../config.js';
import { publicBase } from '../http/public-url.js';
import type { Page } from './sign-in-pages.js';

/** The HTTP pieces of the sign-in surface: who the server is for this request, bodies, answers. */

/** A form or token request body is small; oidc-provider allows 56 KiB, so do we. */
const MAX_BODY_BYTES = 56 * 1024;

export class BodyTooLarge extends Error {
  override readonly name = 'BodyTooLarge';
}

/**
 * The issuer (the bot's public address) this request is for: PUBLIC_URL, or without it the loopback host and
 * port the request named (parsed, never copied). Undefined when the Host is not one the bot answers to
 * (DNS-rebinding protection, as on /mcp) or is more than a name and a port.
 */
export function issuerOf(req: IncomingMessage, config: Config): string | undefined {
  return publicBase(config.mcp, req);
}

/**
 * Tells oidc-provider (which trusts forwarded headers, `provider.proxy`) the public protocol and host, from the
 * issuer rather than from whatever a proxy or a client sent.
 */
export function asPublic(req: IncomingMessage, issuer: string): void {
  const url = new URL(issuer);
  req.headers.host = url.host;
  req.headers['x-forwarded-proto'] = url.protocol.replace(':', '');
  req.headers['x-forwarded-host'] = url.host;
  delete req.headers['x-forwarded-port'];
}

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  if (Number(req.headers['content-length'] ?? 0) > MAX_BODY_BYTES) throw new BodyTooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new BodyTooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The same request with its body, already read here, to be read again (by oidc-provider). */
export function replay(req: IncomingMessage, body: Buffer): IncomingMessage {
  const copy = new IncomingMessage(req.socket);
  copy.method = req.method;
  copy.url = req.url;
  copy.headers = req.headers;
  copy.rawHeaders = req.rawHeaders;
  copy.httpVersion = req.httpVersion;
  copy.httpVersionMajor = req.httpVersionMajor;
  copy.httpVersionMinor = req.httpVersionMinor;
  // Complete, as the parser would have marked it: an incomplete message destroys its socket when it ends.
  copy.complete = true;
  copy.push(body);
  copy.push(null);
  return copy;
}

export function sendPage(res: ServerResponse, page: Page): void {
  res.writeHead(page.status, page.headers);
  res.end(page.html);
}

export function redirect(res: ServerResponse, location: string): void {
  res.writeHead(303, { location, 'cache-control': 'no-store' });
  res.end();
}

export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  extra: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...extra });
  res.end(JSON.stringify(body));
}
