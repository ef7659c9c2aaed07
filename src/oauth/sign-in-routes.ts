import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import type { SignInFeature, SignInStep } from '../tokens/index.js';
import { csrfMatches, issueCsrf } from './csrf.js';
import { BodyTooLarge, readBody, redirect, sendPage } from './oauth-http.js';
import { consentPage, refusalPage } from './sign-in-pages.js';

/**
 * The sign-in pages: `GET /oauth/sign-in` (off to Slack, or the consent page), `GET /oauth/sign-in/slack`
 * (Slack's answer) and `POST /oauth/sign-in/consent` (Allow or Deny). Each reads the request, calls the
 * sign-in use case (tokens/sign-in.ts) and renders what it returns.
 */

export interface SignInContext {
  signIn: SignInFeature;
  provider: Provider;
  issuer: string;
}

const FORGED = {
  title: 'This form was not sent from the consent page you were shown.',
  hint: 'Nothing was allowed. Start again from your assistant.',
};

function render(ctx: SignInContext, req: IncomingMessage, res: ServerResponse, step: SignInStep): void {
  if (step.kind === 'redirect') {
    redirect(res, step.location);
    return;
  }
  if (step.kind === 'refused') {
    sendPage(res, refusalPage(step.refusal));
    return;
  }
  const secure = ctx.issuer.startsWith('https:');
  const token = issueCsrf(req, res, ctx.signIn.csrfKey, step.consent.uid, secure);
  // The form's answer redirects to the client: its origin must be allowed as a form target (CSP form-action).
  sendPage(res, consentPage(step.consent, token, step.consent.client.redirectOrigin));
}

export async function signInPage(
  ctx: SignInContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  render(ctx, req, res, await ctx.signIn.flow.start(ctx.provider, ctx.issuer, req, res));
}

export async function slackCallback(
  ctx: SignInContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const query = new URL(req.url ?? '/', ctx.issuer).searchParams;
  const step = await ctx.signIn.flow.slackCallback(ctx.provider, ctx.issuer, req, res, {
    code: query.get('code') ?? undefined,
    state: query.get('state') ?? undefined,
    error: query.get('error') ?? undefined,
  });
  render(ctx, req, res, step);
}

export async function consentAnswer(
  ctx: SignInContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  // A browser sends Origin with a form POST: one from another site is refused before anything else.
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== new URL(ctx.issuer).origin)
    return sendPage(res, refusalPage(FORGED));
  let form: URLSearchParams;
  try {
    form = new URLSearchParams((await readBody(req)).toString('utf8'));
  } catch (error) {
    if (error instanceof BodyTooLarge) return sendPage(res, refusalPage(FORGED, 413));
    throw error;
  }
  const uid = form.get('uid') ?? '';
  if (!csrfMatches(req, ctx.signIn.csrfKey, uid, form.get('csrf') ?? undefined))
    return sendPage(res, refusalPage(FORGED));
  const decision = form.get('decision');
  if (decision !== 'allow' && decision !== 'deny') return sendPage(res, refusalPage(FORGED, 400));
  const step = await ctx.signIn.flow.decide(ctx.provider, req, res, { uid, allow: decision === 'allow' });
  render(ctx, req, res, step);
}
