import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CustomRoute } from '@slack/bolt';
import type { CoreServices } from '../services.js';
import { OAUTH_PATHS, type SignInFeature } from '../tokens/index.js';
import { asPublic, BodyTooLarge, issuerOf, json, readBody, replay, sendPage } from './oauth-http.js';
import { registrationWait } from './registration-limit.js';
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
    route(OAUTH_PATHS.authorize, ['GET', 'POST'], protocol),
    route(`${OAUTH_PATHS.authorize}/:uid`, ['GET', 'POST'], protocol),
    route(OAUTH_PATHS.token, ['POST', 'OPTIONS'], (ctx, req, res) => tokenRequest(ctx, req, res, protocol)),
    route(OAUTH_PATHS.register, ['POST', 'OPTIONS'], async (ctx, req, res) => {
      const { redis, config } = services;
      const wait = req.method === 'POST' ? await registrationWait(redis, config.redis.prefix, req) : 0;
      if (wait > 0)
        return json(
          res,
          429,
          { error: 'slow_down', error_description: 'Too many registrations; wait and retry.' },
          { 'retry-after': String(wait) },
        );
      return protocol(ctx, req, res);
    }),
    route(OAUTH_PATHS.revoke, ['POST', 'OPTIONS'], protocol),
    route(OAUTH_PATHS.jwks, ['GET'], protocol),
    route(OAUTH_PATHS.signIn, ['GET'], signInPage),
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
