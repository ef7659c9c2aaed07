import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * The consent form's CSRF protection: a short-lived, HttpOnly, SameSite=Lax cookie holds a random session id
 * (Secure behind https), and the form carries an HMAC of that id and the interaction it answers. A POST without
 * the cookie, or with another token (another session's, another interaction's), is refused.
 */

const COOKIE = 'gw_consent';
const MAX_AGE_S = 10 * 60;

function cookieValue(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return undefined;
}

const tokenOf = (key: Buffer, session: string, uid: string) =>
  createHmac('sha256', key).update(`${session}.${uid}`).digest('base64url');

/** The form token for `uid`, setting the session cookie on `res` when the browser has none yet. */
export function issueCsrf(
  req: IncomingMessage,
  res: ServerResponse,
  key: Buffer,
  uid: string,
  secure: boolean,
): string {
  let session = cookieValue(req, COOKIE);
  if (!session || !/^[A-Za-z0-9_-]{43}$/.test(session)) {
    session = randomBytes(32).toString('base64url');
    const attributes = [`Path=/oauth/sign-in`, `Max-Age=${MAX_AGE_S}`, 'HttpOnly', 'SameSite=Lax'];
    if (secure) attributes.push('Secure');
    res.appendHeader('set-cookie', `${COOKIE}=${session}; ${attributes.join('; ')}`);
  }
  return tokenOf(key, session, uid);
}

/** Whether a POST's token is the one this browser's session was given for `uid`. */
export function csrfMatches(
  req: IncomingMessage,
  key: Buffer,
  uid: string,
  token: string | undefined,
): boolean {
  const session = cookieValue(req, COOKIE);
  if (!session || !token) return false;
  const expected = Buffer.from(tokenOf(key, session, uid));
  const sent = Buffer.from(token);
  return sent.length === expected.length && timingSafeEqual(sent, expected);
}
