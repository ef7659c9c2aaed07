import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import type { MethodContext, MethodResult } from './method-context.js';

/**
 * Sign in with Slack (OpenID Connect), as Slack serves it: the authorize page on the web host
 * (`/openid/connect/authorize`), the key set (`/openid/connect/keys`), and the Web API methods
 * `openid.connect.token` (the app's client id and secret, not the bot token) and `openid.connect.userInfo`
 * (the person's token). The page signs in the person the test or the console names (`signInAs`); its Continue
 * button is a plain form, so a test's HTTP client and a real browser press it alike.
 */

const CODE_TTL_MS = 10 * 60_000;
const ID_TOKEN_TTL_S = 300;

interface Issued {
  user: string;
  clientId: string;
  redirectUri: string;
  nonce: string | undefined;
  expiresAt: number;
}

export interface OpenIdOptions {
  clientId: string;
  clientSecret: string;
}

export interface OpenId {
  readonly clientId: string;
  readonly clientSecret: string;
  /** Who the authorize page signs in next (default: the first sample user, alice). */
  signInAs(user: string): void;
  /** GET or POST `/openid/connect/…`; false when the path is not one of them. */
  route(req: IncomingMessage, res: ServerResponse, body: string): Promise<boolean>;
  token(args: Record<string, unknown>): Promise<MethodResult>;
  userInfo(bearer: string | undefined): MethodResult;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Slack (local stand-in)</title></head><body>${html}</body></html>`,
  );
}

export async function createOpenId(ctx: MethodContext, options: OpenIdOptions): Promise<OpenId> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = randomBytes(6).toString('hex');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  const codes = new Map<string, Issued>();
  const accessTokens = new Map<string, { user: string; expiresAt: number }>();
  let signInUser = 'UADMIN';

  const claimsOf = (user: string) => {
    const person = ctx.state.user(user);
    const team = person?.team_id ?? ctx.teamId;
    return {
      sub: user,
      'https://slack.com/user_id': user,
      'https://slack.com/team_id': team,
      name: person?.real_name ?? person?.name ?? user,
      'https://slack.com/team_domain': ctx.teamDomain,
    };
  };

  async function authorize(req: IncomingMessage, res: ServerResponse, body: string): Promise<void> {
    const url = new URL(req.url ?? '/', ctx.origin);
    const params = req.method === 'POST' ? new URLSearchParams(body) : url.searchParams;
    const clientId = params.get('client_id') ?? '';
    const redirectUri = params.get('redirect_uri') ?? '';
    if (clientId !== options.clientId || !/^https?:\/\//.test(redirectUri))
      return page(res, 400, '<p>Invalid client_id or redirect_uri.</p>');
    const scopes = (params.get('scope') ?? '').split(' ');
    if (params.get('response_type') !== 'code' || !scopes.includes('openid'))
      return page(res, 400, '<p>response_type=code and the openid scope are required.</p>');
    const user = req.method === 'POST' ? (params.get('user') ?? signInUser) : signInUser;
    if (req.method === 'GET') {
      const person = ctx.state.user(user);
      const name = person?.real_name ?? person?.name ?? user;
      const hidden = ['client_id', 'redirect_uri', 'scope', 'response_type', 'state', 'nonce', 'team']
        .map((k) => `<input type="hidden" name="${k}" value="${escapeHtml(params.get(k) ?? '')}">`)
        .join('');
      return page(
        res,
        200,
        `<h1>Sign in to Local Workspace</h1><form method="post" action="/openid/connect/authorize">${hidden}<input type="hidden" name="user" value="${escapeHtml(user)}"><button type="submit">Continue as ${escapeHtml(name)}</button></form>`,
      );
    }
    const code = `${randomBytes(4).toString('hex')}.${randomBytes(16).toString('hex')}`;
    codes.set(code, {
      user,
      clientId,
      redirectUri,
      nonce: params.get('nonce') ?? undefined,
      expiresAt: Date.now() + CODE_TTL_MS,
    });
    const back = new URL(redirectUri);
    back.searchParams.set('code', code);
    const state = params.get('state');
    if (state) back.searchParams.set('state', state);
    res.writeHead(302, { location: back.href, 'cache-control': 'no-store' });
    res.end();
  }

  return {
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    signInAs(user) {
      signInUser = user;
    },
    async route(req, res, body) {
      const path = new URL(req.url ?? '/', ctx.origin).pathname;
      if (path === '/openid/connect/keys' && req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ keys: [jwk] }));
        return true;
      }
      if (path === '/openid/connect/authorize' && (req.method === 'GET' || req.method === 'POST')) {
        await authorize(req, res, body);
        return true;
      }
      return false;
    },
    async token(args) {
      if (args.client_id !== options.clientId || args.client_secret !== options.clientSecret)
        return { ok: false, error: 'invalid_client_id' };
      const code = String(args.code ?? '');
      const issued = codes.get(code);
      codes.delete(code);
      if (!issued || issued.expiresAt < Date.now() || issued.clientId !== args.client_id)
        return { ok: false, error: 'invalid_code' };
      if (args.redirect_uri !== issued.redirectUri) return { ok: false, error: 'bad_redirect_uri' };
      const accessToken = `xoxp-${randomBytes(16).toString('hex')}`;
      accessTokens.set(accessToken, { user: issued.user, expiresAt: Date.now() + 3_600_000 });
      const idToken = await new SignJWT({
        ...claimsOf(issued.user),
        ...(issued.nonce ? { nonce: issued.nonce } : {}),
        auth_time: Math.floor(Date.now() / 1000),
      })
        .setProtectedHeader({ alg: 'RS256', kid })
        .setIssuer(ctx.origin)
        .setAudience(options.clientId)
        .setIssuedAt()
        .setExpirationTime(`${ID_TOKEN_TTL_S}s`)
        .sign(privateKey);
      return { ok: true, access_token: accessToken, token_type: 'Bearer', id_token: idToken };
    },
    userInfo(bearer) {
      const held = bearer ? accessTokens.get(bearer) : undefined;
      if (!held || held.expiresAt < Date.now()) return { ok: false, error: 'invalid_auth' };
      return { ok: true, ...claimsOf(held.user) };
    },
  };
}
