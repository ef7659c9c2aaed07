import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CoreServices } from '../services.js';
import { BodyTooLarge, readBody, replay, sendPage } from './oauth-http.js';
import { clientAddress, type Limit, limitWait } from './sign-in-limits.js';
import { errorPage, type Page } from './sign-in-pages.js';

/**
 * What the open sign-in doors check before oidc-provider (or our sign-in page) stores anything: the rate of
 * requests (per address and in all), and the size of the authorization request's parameters. An authorization
 * request is a sign-in kept 10 minutes with every parameter in it; an honest one is a few hundred bytes.
 */

/** The longest value of any authorization parameter; `scope` names two scopes. */
const MAX_PARAMETER = 512;
const MAX_SCOPE = 256;
/** The whole request's parameters (a long unknown one is not stored, but is not read either). */
const MAX_PARAMETERS = 4_096;

export function slowDown(wait: number): Page {
  const page = errorPage({
    error: 'slow_down',
    error_description: `Too many sign-in requests; try again in ${wait} seconds.`,
  });
  return { ...page, status: 429, headers: { ...page.headers, 'retry-after': String(wait) } };
}

/** Seconds this request must wait under `limit` (0: it may go on). */
export function waitOf(services: CoreServices, limit: Limit, req: IncomingMessage): Promise<number> {
  const address = clientAddress(req, services.config.trustProxy);
  return limitWait(services.redis, services.config.redis.prefix, limit, address);
}

function oversized(params: URLSearchParams, length: number): string | undefined {
  if (length > MAX_PARAMETERS) return `The request's parameters are longer than ${MAX_PARAMETERS} bytes.`;
  for (const [name, value] of params) {
    const max = name === 'scope' ? MAX_SCOPE : MAX_PARAMETER;
    if (Buffer.byteLength(value) > max) return `${name.slice(0, 40)} is longer than ${max} bytes.`;
  }
  return undefined;
}

/**
 * The authorization request as oidc-provider may read it, or undefined when it was refused here (the page is
 * sent: a person's browser shows it, nothing is redirected or stored).
 */
export async function checkedAuthorization(
  issuer: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<IncomingMessage | undefined> {
  let params: URLSearchParams;
  let length: number;
  let request = req;
  if (req.method === 'POST') {
    let body: Buffer;
    try {
      body = await readBody(req);
    } catch (error) {
      if (!(error instanceof BodyTooLarge)) throw error;
      body = Buffer.alloc(MAX_PARAMETERS + 1);
    }
    params = new URLSearchParams(body.toString('utf8'));
    length = body.length;
    request = replay(req, body);
  } else {
    const url = new URL(req.url ?? '/', issuer);
    params = url.searchParams;
    length = url.search.length;
  }
  const problem = oversized(params, length);
  if (!problem) return request;
  sendPage(res, errorPage({ error: 'invalid_request', error_description: problem }));
  return undefined;
}
