import { createHash, createHmac, createPrivateKey } from 'node:crypto';
import type { JWK } from 'oidc-provider';

/**
 * The authorization server's own secrets, the same on every process and kept nowhere: derived from the app's
 * OAuth client secret (SLACK_CLIENT_SECRET), which every process that serves sign-in already has. Rotating that
 * secret rotates these (an interrupted sign-in then starts again; issued tokens are opaque and unaffected).
 */

const derive = (secret: string, purpose: string) =>
  createHmac('sha256', secret).update(`gateway-bot oauth ${purpose} v1`).digest();

/** Keys that sign the sign-in cookies (the interaction, the session, the consent form's CSRF binding). */
export function cookieKeys(secret: string): string[] {
  return [derive(secret, 'cookies').toString('base64url')];
}

/** A key for CSRF tokens of the consent form, apart from the cookie keys. */
export function csrfKey(secret: string): Buffer {
  return derive(secret, 'csrf');
}

/** PKCS#8 DER prefix of an Ed25519 private key; the 32-byte seed follows. */
const ED25519_PKCS8 = Buffer.from('302e020100300506032b657004220420', 'hex');

/**
 * The signing key oidc-provider requires for ID Tokens (issued only to a client that asks for `openid`; the
 * assistant tools' access tokens are opaque and signed by nothing).
 */
export function signingKey(secret: string): JWK {
  const seed = derive(secret, 'signing key');
  const key = createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8, seed]),
    format: 'der',
    type: 'pkcs8',
  });
  const jwk = key.export({ format: 'jwk' }) as JWK;
  const kid = createHash('sha256').update(String(jwk.x)).digest('base64url').slice(0, 16);
  return { ...jwk, kid, alg: 'Ed25519', use: 'sig' };
}
