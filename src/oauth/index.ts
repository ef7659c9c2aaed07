import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CustomRoute } from '@slack/bolt';
import type { CoreServices } from '../services.js';
import { OAUTH_PATHS, type SignInFeature } from '../tokens/index.js';
import { checkedAuthorization, slowDown, waitOf } from './authorize-guard.js';
import { asPublic, BodyTooLarge, issuerOf, json, readBody, replay, sendPage } from './oauth-http.js';
import { AUTHORIZATIONS, REGISTRATIONS, SIGN_IN_PAGES } from './sign-in-limits.js';
import { errorPage } from './sign-in-pages.js';
import { consentAnswer, type SignInContext, signInPage, slackCallback } from './sign-in-routes.js';

/**
 * oauth/ is a surface: the bot as the OAuth 2.1 authorization server of its own `/mcp`, so hosted assistants
 * (Claude.ai and ChatGPT connectors, the Inspector, any MCP client) connect with the URL alone. The protocol
 * endpoints are oidc-provider's (tokens/authorization-server.ts), reached through here; the sign-in pages are
 * ours. Without the app's OAuth client (SLACK_CLIENT_ID and SECRET) there are no routes and `/mcp` takes
 * static tokens only.
 */

const AS_METADATA = '/.well-known/oauth-authorization-server';
const OIDC_METADATA = '/.well-known/openid-configuration';

type Work = (ctx: SignInContext, req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** A registration is a name, a redirect URI or two and a few words: the client is kept as it was sent. */
const MAX_REGISTRATION_BYTES = 4_096;

export function oauthRoutes(services: CoreServices): CustomRoute[] {
  const signIn = services.tokens.signIn;
  if (!signIn) return [];
  const route = routeMaker(services, signIn);
  const protocol = protocolHandler();
  return [
    route(AS_METADATA, ['GET', 'OPTIONS'], (ctx, req, res) => {
      // RFC 8414 metadata is oidc-provider's discovery document (client_id_metadata_document_supported included).
      req.url = OIDC_METADATA;
      return protocol(ctx, req, res);
    }),
    route(OIDC_METADATA, ['GET', 'OPTIONS'], protocol),
    route(OAUTH_PATHS.authorize, ['GET', 'POST'], async (ctx, req, res) => {
      // Size first: an oversized request is refused without a write, and uses up no one's rate.
      const checked = await checkedAuthorization(ctx.issuer, req, res);
      if (!checked) return;
      const wait = await waitOf(services, AUTHORIZATIONS, req);
      if (wait > 0) return sendPage(res, slowDown(wait));
      await protocol(ctx, checked, res);
    }),
    route(`${OAUTH_PATHS.authorize}/:uid`, ['GET', 'POST'], protocol),
    route(OAUTH_PATHS.token, ['POST', 'OPTIONS'], (ctx, req, res) => tokenRequest(ctx, req, res, protocol)),
    route(OAUTH_PATHS.register, ['POST', 'OPTIONS'], (ctx, req, res) =>
      registration(services, ctx, req, res, protocol),
    ),
    route(OAUTH_PATHS.revoke, ['POST', 'OPTIONS'], protocol),
    route(OAUTH_PATHS.jwks, ['GET'], protocol),
    route(OAUTH_PATHS.signIn, ['GET'], async (ctx, req, res) => {
      const wait = await waitOf(services, SIGN_IN_PAGES, req);
      if (wait > 0) return sendPage(res, slowDown(wait));
      await signInPage(ctx, req, res);
    }),
    route(`${OAUTH_PATHS.signIn}/slack`, ['GET'], slackCallback),
    route(`${OAUTH_PATHS.signIn}/consent`, ['POST'], consentAnswer),
  ];
}

/**
 * A route of the sign-in surface: the request's issuer (its Host must be one the bot answers to), that issuer's
 * authorization server, then the work; a failure is logged and answered with an error page, never a stack.
 */
function routeMaker(services: CoreServices, signIn: SignInFeature) {
  const log = services.logger.child({ part: 'oauth' });
  const context = async (req: IncomingMessage): Promise<SignInContext | undefined> => {
    const issuer = issuerOf(req, services.config);
    if (!issuer) return undefined;
    const provider = await signIn.serverFor(issuer, errorPage);
    asPublic(req, issuer);
    return { signIn, provider, issuer };
  };
  const serve = async (work: Work, req: IncomingMessage, res: ServerResponse) => {
    const ctx = await context(req);
    if (!ctx) return json(res, 403, { error: 'forbidden', error_description: 'Host not allowed' });
    await work(ctx, req, res);
  };
  return (path: string, method: string[], work: Work): CustomRoute => ({
    path,
    method,
    handler: (req, res) =>
      void serve(work, req, res).catch((error: unknown) => {
        log.error('assistant sign-in failed', error);
        const page = errorPage({
          error: 'server_error',
          error_description: 'The bot failed; try again in a minute.',
        });
        if (!res.headersSent) sendPage(res, { ...page, status: 500 });
        else res.end();
      }),
  });
}

/** oidc-provider's own request handler, one per authorization server. */
function protocolHandler(): Work {
  const handlers = new WeakMap<
    SignInContext['provider'],
    ReturnType<SignInContext['provider']['callback']>
  >();
  return (ctx, req, res) => {
    let handler = handlers.get(ctx.provider);
    if (!handler) {
      handler = ctx.provider.callback();
      handlers.set(ctx.provider, handler);
    }
    return handler(req, res) as unknown as Promise<void>;
  };
}

/**
 * Dynamic registration, open to anyone: within the rate, a small body, and while fewer than a few hundred
 * registered clients wait unused (each is kept an hour); oidc-provider then checks each field (clientPolicy).
 */
async function registration(
  services: CoreServices,
  ctx: SignInContext,
  req: IncomingMessage,
  res: ServerResponse,
  protocol: Work,
): Promise<void> {
  if (req.method !== 'POST') return protocol(ctx, req, res);
  const slow = (wait: number) =>
    json(
      res,
      429,
      { error: 'slow_down', error_description: 'Too many registrations; wait and retry.' },
      { 'retry-after': String(wait) },
    );
  const wait = await waitOf(services, REGISTRATIONS, req);
  if (wait > 0) return slow(wait);
  let body: Buffer | undefined;
  try {
    body = await readBody(req);
  } catch (error) {
    if (!(error instanceof BodyTooLarge)) throw error;
  }
  if (!body || body.length > MAX_REGISTRATION_BYTES)
    return json(res, 413, {
      error: 'invalid_client_metadata',
      error_description: `a registration is at most ${MAX_REGISTRATION_BYTES} bytes`,
    });
  if (!(await ctx.signIn.registrationRoom())) return slow(60);
  return protocol(ctx, replay(req, body), res);
}

/**
 * The token endpoint, after one check of ours: a code or refresh token is exchanged only with the `resource`
 * parameter (RFC 8707), as the MCP clients send it; oidc-provider binds the token to the granted one either way.
 */
async function tokenRequest(
  ctx: SignInContext,
  req: IncomingMessage,
  res: ServerResponse,
  protocol: Work,
): Promise<void> {
  if (req.method !== 'POST') return protocol(ctx, req, res);
  let body: Buffer;
  try {
    body = await readBody(req);
  } catch (error) {
    if (error instanceof BodyTooLarge) return json(res, 413, { error: 'invalid_request' });
    throw error;
  }
  const form = new URLSearchParams(body.toString('utf8'));
  const grantType = form.get('grant_type');
  if ((grantType === 'authorization_code' || grantType === 'refresh_token') && !form.get('resource'))
    return json(res, 400, {
      error: 'invalid_target',
      error_description: `the resource parameter is required: ${ctx.issuer}/mcp`,
    });
  return protocol(ctx, replay(req, body), res);
}
