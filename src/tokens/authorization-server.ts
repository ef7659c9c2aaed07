import type { KoaContextWithOIDC } from 'oidc-provider';
import Provider, { type Configuration, errors } from 'oidc-provider';
import type { AppLogger } from '../logger.js';
import { metadataFetch } from './metadata-fetch.js';
import type { OAuthStore } from './oauth-store.js';
import { OAUTH_PATHS } from './paths.js';
import { cookieKeys, signingKey } from './server-keys.js';
import { OAUTH_SCOPES, sameResource } from './verify-bearer.js';

/**
 * The authorization server of the bot's own `/mcp` (oidc-provider, configured): authorization code with PKCE
 * (S256, required of every client), rotating refresh tokens (a reuse revokes the grant), resource indicators
 * (required on the authorization request; a token is for this server's `/mcp` only), the scopes `gateway:read`
 * and `gateway:act`, revocation, dynamic registration and client ID metadata documents. Who signs in and what
 * they allow happens on the sign-in pages (oauth/), which finish oidc-provider's interactions.
 */

const ACCESS_TOKEN_TTL_S = 3_600;
const CODE_TTL_S = 60;
/** A refresh token unused this long expires (each use rotates it and starts again), within its grant's life. */
const REFRESH_IDLE_TTL_S = 30 * 86_400;
/** The whole sign-in (Slack, then the consent page) must be done within this. */
const INTERACTION_TTL_S = 10 * 60;
/** Long enough to sign in and consent; a later authorization signs in with Slack again. */
const SESSION_TTL_S = 10 * 60;

export interface AuthorizationServerOptions {
  store: OAuthStore;
  /** SLACK_CLIENT_SECRET: the server's cookie and signing keys derive from it. */
  secret: string;
  /** How long a grant lasts (MCP_TOKEN_TTL), in seconds. */
  grantTtlS: number;
  metadataAllowedHosts: readonly string[];
  metadataCa?: string | undefined;
  /** Whether an account (`TEAM:USER`) may still hold tokens; throws when that cannot be checked now. */
  personStands(team: string, user: string): Promise<boolean>;
  /** The page of an error the browser lands on (a bad client or redirect URI: nothing to redirect to). */
  errorPage(out: { error: string; error_description?: string | undefined }): {
    html: string;
    headers: Record<string, string>;
  };
  logger: AppLogger;
}

const isLoopback = (host: string) =>
  host === 'localhost' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);

/** Redirect URIs: https, or http on a loopback host (a local client's callback), nothing else. */
function redirectUriAllowed(uri: unknown): boolean {
  if (typeof uri !== 'string') return false;
  try {
    const url = new URL(uri);
    return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopback(url.hostname));
  } catch {
    return false;
  }
}

/** A client's self-declared name is shown on the consent page, in Slack and on Home: a name, not a text. */
const MAX_CLIENT_NAME = 100;
const MAX_URI = 512;
/** Each list field (redirect_uris, contacts) holds a few entries; each is stored with the client. */
const MAX_ENTRIES = 5;
const URI_FIELDS = ['client_uri', 'logo_uri', 'policy_uri', 'tos_uri', 'jwks_uri', 'initiate_login_uri'];

/** Registration is open to anyone and a client is kept as sent: every field stays small. */
function fieldSizes(metadata: Record<string, unknown>): void {
  const tooLong = (what: string) => new errors.InvalidClientMetadata(`${what} is too long`);
  const name = metadata.client_name;
  if (typeof name === 'string' && name.length > MAX_CLIENT_NAME)
    throw tooLong(`client_name (at most ${MAX_CLIENT_NAME} characters)`);
  for (const field of ['redirect_uris', 'contacts', 'post_logout_redirect_uris', 'request_uris']) {
    const list = metadata[field];
    if (!Array.isArray(list)) continue;
    if (list.length > MAX_ENTRIES) throw tooLong(`${field} (at most ${MAX_ENTRIES} entries)`);
    if (list.some((entry) => String(entry).length > MAX_URI)) throw tooLong(`an entry of ${field}`);
  }
  for (const field of URI_FIELDS)
    if (String(metadata[field] ?? '').length > MAX_URI) throw tooLong(`${field} (at most ${MAX_URI})`);
}

function clientPolicy(_ctx: unknown, key: string, _value: unknown, metadata: Record<string, unknown>): void {
  if (key !== 'gateway_client_policy') return;
  fieldSizes(metadata);
  const uris = Array.isArray(metadata.redirect_uris) ? metadata.redirect_uris : [];
  const bad = uris.find((uri) => !redirectUriAllowed(uri));
  if (bad !== undefined)
    throw new errors.InvalidRedirectUri(
      `redirect_uris must be https, or http on a loopback host: ${String(bad)}`,
    );
  // A "native" client's loopback redirect would match on any port (RFC 8252); here a redirect URI is compared
  // exactly, whatever the client calls itself.
  metadata.application_type = 'web';
  delete metadata.gateway_client_policy;
}

/** A client that says nothing else: a public client (PKCE, no secret) of the code flow, with refresh tokens. */
const CLIENT_DEFAULTS: Configuration['clientDefaults'] = {
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
  id_token_signed_response_alg: 'Ed25519',
};

const ROUTES: Configuration['routes'] = {
  authorization: OAUTH_PATHS.authorize,
  token: OAUTH_PATHS.token,
  registration: OAUTH_PATHS.register,
  revocation: OAUTH_PATHS.revoke,
  jwks: OAUTH_PATHS.jwks,
};

/** The protocol features on and off: resource indicators for this server's `/mcp` alone. */
function features(resource: string): Configuration['features'] {
  return {
    devInteractions: { enabled: false },
    userinfo: { enabled: false },
    rpInitiatedLogout: { enabled: false },
    revocation: {
      enabled: true,
      // A token of another client is not revoked, and the answer does not say so (RFC 7009 §2.2).
      allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId,
    },
    registration: { enabled: true, initialAccessToken: false, issueRegistrationAccessToken: false },
    clientIdMetadataDocument: { enabled: true, ack: 'draft-02', cacheDuration: { min: 30, max: 86_400 } },
    resourceIndicators: {
      enabled: true,
      async defaultResource() {
        throw new errors.InvalidTarget(`the resource parameter is required: ${resource}`);
      },
      useGrantedResource: async () => true,
      async getResourceServerInfo(_ctx, indicator) {
        if (!sameResource(indicator, resource))
          throw new errors.InvalidTarget(`this server issues tokens for ${resource} only`);
        return {
          scope: `${OAUTH_SCOPES.read} ${OAUTH_SCOPES.act}`,
          audience: resource,
          accessTokenTTL: ACCESS_TOKEN_TTL_S,
          accessTokenFormat: 'opaque',
        };
      },
    },
  };
}

/** How long each record lives: access tokens an hour, codes a minute, a grant MCP_TOKEN_TTL at most. */
function lifetimes(grantTtlS: number): Configuration['ttl'] {
  return {
    AccessToken: ACCESS_TOKEN_TTL_S,
    AuthorizationCode: CODE_TTL_S,
    ClientCredentials: ACCESS_TOKEN_TTL_S,
    IdToken: ACCESS_TOKEN_TTL_S,
    Interaction: INTERACTION_TTL_S,
    Session: SESSION_TTL_S,
    Grant: grantTtlS,
    RefreshToken(ctx) {
      const grantExp = ctx?.oidc?.entities.Grant?.exp;
      const left = grantExp ? grantExp - Math.floor(Date.now() / 1000) : REFRESH_IDLE_TTL_S;
      return Math.max(1, Math.min(REFRESH_IDLE_TTL_S, left));
    },
  };
}

function configuration(issuer: string, o: AuthorizationServerOptions): Configuration {
  const resource = `${issuer}/mcp`;
  return {
    adapter: (name: string) => o.store.adapterFor(name),
    clients: [],
    async findAccount(_ctx, id) {
      const [team, user] = id.split(':');
      if (!team || !user || !(await o.personStands(team, user))) return undefined;
      return { accountId: id, claims: async () => ({ sub: id }) };
    },
    // Ours are listed too: clients register with them (DCR's `scope`) and read them in the metadata.
    scopes: ['offline_access', OAUTH_SCOPES.read, OAUTH_SCOPES.act],
    claims: { openid: ['sub'] },
    responseTypes: ['code'],
    clientDefaults: CLIENT_DEFAULTS,
    clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post'],
    enabledJWA: { idTokenSigningAlgValues: ['Ed25519'] },
    jwks: { keys: [signingKey(o.secret)] },
    pkce: { required: () => true },
    allowOmittingSingleRegisteredRedirectUri: false,
    extraClientMetadata: { properties: ['gateway_client_policy'], validator: clientPolicy },
    cookies: {
      keys: cookieKeys(o.secret),
      names: { session: 'gw_oauth_session', interaction: 'gw_oauth_interaction', resume: 'gw_oauth_resume' },
      long: { httpOnly: true, sameSite: 'lax', signed: true },
      short: { httpOnly: true, sameSite: 'lax', signed: true },
    },
    features: features(resource),
    fetch: metadataFetch({
      allowedHosts: o.metadataAllowedHosts,
      ca: o.metadataCa,
    }) as Configuration['fetch'],
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    expiresWithSession: async () => false,
    // Consent is asked at every authorization: only the grant this very sign-in made counts.
    async loadExistingGrant(ctx: KoaContextWithOIDC) {
      const grantId = ctx.oidc.result?.consent?.grantId;
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    interactions: { url: async () => OAUTH_PATHS.signIn },
    clientBasedCORS: () => true,
    async renderError(ctx, out) {
      ctx.state.gwRendered = true;
      const page = o.errorPage(out);
      for (const [name, value] of Object.entries(page.headers)) ctx.set(name, value);
      ctx.body = page.html;
    },
    ttl: lifetimes(o.grantTtlS),
    routes: ROUTES,
  };
}

/**
 * An error of the authorization request, found before anyone signed in, goes back to the client's redirect URI
 * only when the bot trusts the client: its redirect is on the person's own machine (loopback), or someone of the
 * workspace allowed it before. Otherwise the browser gets the error page: a link on the bot's host must not
 * land on a page anyone could register (RFC 9700 §4.11.2).
 */
function pageForUntrusted(o: AuthorizationServerOptions) {
  const trusted = async (ctx: KoaContextWithOIDC) => {
    const client = ctx.oidc?.client;
    const redirect = ctx.oidc?.params?.redirect_uri;
    if (!client) return false;
    if (typeof redirect === 'string' && URL.canParse(redirect) && isLoopback(new URL(redirect).hostname))
      return true;
    return o.store.clientConsented(client.clientId);
  };
  return async (ctx: KoaContextWithOIDC, next: () => Promise<void>) => {
    await next();
    const error = ctx.state.gwError as { error?: string; error_description?: string } | undefined;
    if (!error || ctx.state.gwRendered || ctx.path !== OAUTH_PATHS.authorize || (await trusted(ctx))) return;
    const page = o.errorPage({
      error: error.error ?? 'server_error',
      error_description: error.error_description,
    });
    ctx.remove('location');
    ctx.status = 400;
    for (const [name, value] of Object.entries(page.headers)) ctx.set(name, value);
    ctx.body = page.html;
  };
}

/**
 * The server of one issuer (the bot's public address). Without PUBLIC_URL the address is the request's own
 * loopback host, so a few may exist side by side (`localhost:3000`, `127.0.0.1:3000`), each with its own.
 */
export function createAuthorizationServer(issuer: string, options: AuthorizationServerOptions): Provider {
  const provider = new Provider(issuer, configuration(issuer, options));
  // Behind the operator's TLS proxy: the surface states the public protocol and host on each request.
  provider.proxy = true;
  // Koa would print what it considers unhandled to stderr; oidc-provider's own events are logged below instead.
  provider.silent = true;
  const log = options.logger.child({ part: 'oauth' });
  provider.on('server_error', (ctx, error) => {
    ctx.state.gwError = error;
    log.error('authorization server error', error);
  });
  provider.on('authorization.error', (ctx, error) => {
    ctx.state.gwError = error;
  });
  provider.use(pageForUntrusted(options));
  provider.on('grant.revoked', (_ctx, grantId) => log.info(`oauth grant revoked (${grantId.slice(0, 6)}…)`));
  return provider;
}
