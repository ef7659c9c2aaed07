import { Agent, fetch as undiciFetch } from 'undici';

/**
 * How the authorization server fetches a client's metadata document (its `client_id` URL). oidc-provider makes
 * every such fetch https only, with no redirects, within 2.5 s, at most 5 KB, cached as the document's headers
 * say, and through a connection that refuses private, loopback and link-local addresses (the socket's own
 * address is checked, so DNS cannot be raced). Here one exception is added: hosts an operator names
 * (OAUTH_METADATA_ALLOWED_HOSTS, `host` or `host:port`) are fetched even on a private address, for a client
 * inside the company network, and the tests' own loopback host. Everything else is as oidc-provider does it.
 */

type Fetch = (url: string | URL, options: RequestInit & { dispatcher?: unknown }) => Promise<Response>;

export interface MetadataFetchOptions {
  allowedHosts: readonly string[];
  /** Extra certificate authorities trusted for the allowed hosts only (tests; NODE_EXTRA_CA_CERTS otherwise). */
  ca?: string | undefined;
}

export function metadataFetch(options: MetadataFetchOptions): Fetch {
  const allowed = new Set(options.allowedHosts.map((h) => h.toLowerCase()));
  let agent: Agent | undefined;
  return (url, init) => {
    const target = new URL(url);
    if (!allowed.has(target.host.toLowerCase()) && !allowed.has(target.hostname.toLowerCase()))
      return globalThis.fetch(url, init as RequestInit);
    agent ??= new Agent({
      connect: { timeout: 5_000, ...(options.ca ? { ca: options.ca } : {}) },
      headersTimeout: 5_000,
      bodyTimeout: 5_000,
    });
    const { dispatcher: _ssrfChecked, ...rest } = init;
    return undiciFetch(target, {
      ...(rest as Parameters<typeof undiciFetch>[1]),
      dispatcher: agent,
    }) as unknown as Promise<Response>;
  };
}
