import type { IncomingMessage } from 'node:http';

/**
 * The bot's public address for one request, for what it tells clients about itself (the assistant tools'
 * protected-resource metadata and 401 challenge, the authorization server's issuer): PUBLIC_URL when set;
 * without it, `http://` and the host name and port the Host header names, rebuilt from their parsed parts.
 * The Host header itself is never copied: a Host with anything beside a name and a port (a path, a query, a
 * fragment, a quote, user info with `@`, a space) is refused, so it cannot write into a URL or a header value.
 */

/** A host name, an IPv4 address or a bracketed IPv6 address, and an optional port: nothing else. */
const PLAIN_HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252})|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

/**
 * The origin (`http://name[:port]`) a Host header names, or undefined when it is anything but a name and port,
 * or its name is not one of `allowed` (lower case; DNS-rebinding protection).
 */
function hostOrigin(host: string | undefined, allowed: readonly string[]): string | undefined {
  if (!host || !PLAIN_HOST.test(host)) return undefined;
  let url: URL;
  try {
    url = new URL(`http://${host}`);
  } catch {
    return undefined;
  }
  // The parsed parts alone, and only when parsing kept them as given (no path, no user info crept in).
  if (url.pathname !== '/' || url.search || url.hash || url.username || url.password) return undefined;
  if (!allowed.includes(url.hostname.toLowerCase())) return undefined;
  return `http://${url.hostname.toLowerCase()}${url.port ? `:${url.port}` : ''}`;
}

/**
 * PUBLIC_URL, or the origin the request's Host names; undefined when the Host is not plain or not allowed (with
 * PUBLIC_URL too: a request for a name the bot does not answer to is refused either way).
 */
export function publicBase(
  mcp: { publicUrl: string | undefined; allowedHosts: readonly string[] },
  req: IncomingMessage,
): string | undefined {
  const origin = hostOrigin(req.headers.host, mcp.allowedHosts);
  return origin && (mcp.publicUrl ?? origin);
}

/** A value as an HTTP quoted-string (RFC 9110 §5.6.4): `"` and `\` escaped, controls dropped. */
export function quoted(value: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: controls are what is removed here
  return `"${value.replace(/[\u0000-\u001f\u007f]/g, '').replace(/["\\]/g, '\\$&')}"`;
}
