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

function page(res: ServerResponse, status: number, html: string): undefined {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Slack (local stand-in)</title></head><body>${html}</body></html>`,
  );
}

type Key = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

class StandInOpenId implements OpenId {
  readonly #codes = new Map<string, Issued>();
  readonly #accessTokens = new Map<string, { user: string; expiresAt: number }>();
  #signInUser = 'UADMIN';

  constructor(
    private readonly ctx: MethodContext,
    private readonly options: OpenIdOptions,
    private readonly key: { privateKey: Key; jwk: JWK },
  ) {}

  get clientId() {
    return this.options.clientId;
  }
  get clientSecret() {
    return this.options.clientSecret;
  }

  signInAs(user: string): void {
    this.#signInUser = user;
  }

  async route(req: IncomingMessage, res: ServerResponse, body: string): Promise<boolean> {
    const path = new URL(req.url ?? '/', this.ctx.origin).pathname;
    if (path === '/openid/connect/keys' && req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys: [this.key.jwk] }));
      return true;
    }
    if (path === '/openid/connect/authorize' && (req.method === 'GET' || req.method === 'POST')) {
      this.#authorize(req, res, body);
      return true;
    }
    return false;
  }

  #claimsOf(user: string) {
    const person = this.ctx.state.user(user);
    return {
      sub: user,
      'https://slack.com/user_id': user,
      'https://slack.com/team_id': person?.team_id ?? this.ctx.teamId,
      name: person?.real_name ?? person?.name ?? user,
      'https://slack.com/team_domain': this.ctx.teamDomain,
    };
  }

  /** GET: the "Continue as …" page; POST (its button): back to the app with a code. */
  #authorize(req: IncomingMessage, res: ServerResponse, body: string): undefined {
    const params =
      req.method === 'POST'
        ? new URLSearchParams(body)
        : new URL(req.url ?? '/', this.ctx.origin).searchParams;
    const clientId = params.get('client_id') ?? '';
    const redirectUri = params.get('redirect_uri') ?? '';
    if (clientId !== this.options.clientId || !/^https?:\/\//.test(redirectUri))
      return page(res, 400, '<p>Invalid client_id or redirect_uri.</p>');
    if (params.get('response_type') !== 'code' || !(params.get('scope') ?? '').split(' ').includes('openid'))
      return page(res, 400, '<p>response_type=code and the openid scope are required.</p>');
    if (req.method === 'GET') return this.#signInPage(res, params);
    const code = `${randomBytes(4).toString('hex')}.${randomBytes(16).toString('hex')}`;
    this.#codes.set(code, {
      user: params.get('user') ?? this.#signInUser,
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

  #signInPage(res: ServerResponse, params: URLSearchParams): undefined {
    const person = this.ctx.state.user(this.#signInUser);
    const name = person?.real_name ?? person?.name ?? this.#signInUser;
    const hidden = ['client_id', 'redirect_uri', 'scope', 'response_type', 'state', 'nonce', 'team']
      .map((k) => `<input type="hidden" name="${k}" value="${escapeHtml(params.get(k) ?? '')}">`)
      .join('');
    page(
      res,
      200,
      `<h1>Sign in to Local Workspace</h1><form method="post" action="/openid/connect/authorize">${hidden}<input type="hidden" name="user" value="${escapeHtml(this.#signInUser)}"><button type="submit">Continue as ${escapeHtml(name)}</button></form>`,
    );
  }

  async token(args: Record<string, unknown>): Promise<MethodResult> {
    if (args.client_id !== this.options.clientId || args.client_secret !== this.options.clientSecret)
      return { ok: false, error: 'invalid_client_id' };
    const code = String(args.code ?? '');
    const issued = this.#codes.get(code);
    this.#codes.delete(code);
    if (!issued || issued.expiresAt < Date.now() || issued.clientId !== args.client_id)
      return { ok: false, error: 'invalid_code' };
    if (args.redirect_uri !== issued.redirectUri) return { ok: false, error: 'bad_redirect_uri' };
    const accessToken = `xoxp-${randomBytes(16).toString('hex')}`;
    this.#accessTokens.set(accessToken, { user: issued.user, expiresAt: Date.now() + 3_600_000 });
    const idToken = await new SignJWT({
      ...this.#claimsOf(issued.user),
      ...(issued.nonce ? { nonce: issued.nonce } : {}),
      auth_time: Math.floor(Date.now() / 1000),
    })
      .setProtectedHeader({ alg: 'RS256', kid: String(this.key.jwk.kid) })
      .setIssuer(this.ctx.origin)
      .setAudience(this.options.clientId)
      .setIssuedAt()
      .setExpirationTime(`${ID_TOKEN_TTL_S}s`)
      .sign(this.key.privateKey);
    return { ok: true, access_token: accessToken, token_type: 'Bearer', id_token: idToken };
  }

  userInfo(bearer: string | undefined): MethodResult {
    const held = bearer ? this.#accessTokens.get(bearer) : undefined;
    if (!held || held.expiresAt < Date.now()) return { ok: false, error: 'invalid_auth' };
    return { ok: true, ...this.#claimsOf(held.user) };
  }
}

export async function createOpenId(ctx: MethodContext, options: OpenIdOptions): Promise<OpenId> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = randomBytes(6).toString('hex');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  return new StandInOpenId(ctx, options, { privateKey, jwk });
}
