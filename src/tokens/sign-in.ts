import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import type { AccessPolicy, ClientReach } from '../access/index.js';
import { AccessError, AccessErrorCode } from '../access/index.js';
import type { Redis } from '../redis/connection.js';
import { SignInFailed, type SignInWithSlack } from '../slack/sign-in-with-slack.js';
import type { TokenScope } from '../store/index.js';
import type { GrantIndex } from './grants.js';
import type { OAuthStore } from './oauth-store.js';
import { OAUTH_PATHS } from './paths.js';
import { toolScope } from './verify-bearer.js';

/**
 * The person's side of an assistant's authorization: sign in with Slack (state and nonce kept here, single use),
 * the same person rules as minting a token in Slack (another workspace, a guest, someone deactivated: refused,
 * saying why), then the consent the page shows and the person's Allow or Deny. Each step finishes one of
 * oidc-provider's interactions, found by its cookie on the request.
 */

const STATE_TTL_MS = 10 * 60_000;
const CLIENTS_SHOWN = 20;

export interface Refusal {
  title: string;
  hint: string;
  /** Back to the assistant with `error=access_denied`, when the request came from one. */
  returnTo?: string | undefined;
}

export interface ConsentRequest {
  /** The interaction this consent answers: the CSRF token is bound to it. */
  uid: string;
  person: { user: string; name: string | undefined };
  client: {
    /** Self-declared by the client: shown as such. */
    name: string | undefined;
    id: string;
    /** Its client_id is its metadata document's URL (else it registered itself). */
    byDocument: boolean;
    redirectHost: string;
    /** The origin of its redirect URI (where the consent form's answer ends up). */
    redirectOrigin: string;
    /** Its redirect is on the person's own machine (any local program could receive it). */
    loopback: boolean;
  };
  scope: TokenScope;
  reach: { all: boolean; clients: string[]; more: number };
  accessTokenMinutes: number;
  grantDays: number;
}

export type SignInStep =
  | { kind: 'redirect'; location: string }
  | { kind: 'consent'; consent: ConsentRequest }
  | { kind: 'refused'; refusal: Refusal };

export interface SignInDeps {
  redis: Redis;
  prefix: string;
  slack: SignInWithSlack;
  access: AccessPolicy;
  reach: ClientReach;
  store: OAuthStore;
  grants: GrantIndex;
  grantTtlS: number;
}

const STALE: Refusal = {
  title: 'This sign-in has expired or was already used.',
  hint: 'Start again from your assistant: it opens a new sign-in page.',
};

function sameText(a: string, b: string): boolean {
  const [x, y] = [Buffer.from(a), Buffer.from(b)];
  return x.length === y.length && timingSafeEqual(x, y);
}

const isLoopbackHost = (host: string) =>
  host === 'localhost' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);

export class AssistantSignIn {
  constructor(private readonly deps: SignInDeps) {}

  /** One Slack state per sign-in (interaction), overwritten when the page is opened again. */
  #stateKey(uid: string) {
    return `${this.deps.prefix}:oauth:slack-state:${uid}`;
  }
  #nameKey(accountId: string) {
    return `${this.deps.prefix}:oauth:signed-in-name:${accountId}`;
  }

  /** `GET /oauth/sign-in`: off to Slack to sign in, or the consent page once signed in. */
  async start(
    provider: Provider,
    issuer: string,
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<SignInStep> {
    const details = await this.#details(provider, req, res);
    if (!details) return { kind: 'refused', refusal: STALE };
    if (details.prompt.name === 'consent')
      return { kind: 'consent', consent: await this.#consent(provider, details) };
    const state = randomBytes(24).toString('base64url');
    const nonce = randomBytes(24).toString('base64url');
    await this.deps.redis.set(
      this.#stateKey(details.uid),
      JSON.stringify({ state, nonce }),
      'PX',
      STATE_TTL_MS,
    );
    const location = this.deps.slack.authorizeUrl({
      redirectUri: `${issuer}${OAUTH_PATHS.signIn}/slack`,
      state,
      nonce,
      team: await this.deps.access.homeTeam(),
    });
    return { kind: 'redirect', location };
  }

  /** `GET /oauth/sign-in/slack`: Slack's answer; the person, checked, signs in (or is refused, saying why). */
  async slackCallback(
    provider: Provider,
    issuer: string,
    req: IncomingMessage,
    res: ServerResponse,
    query: { code?: string | undefined; state?: string | undefined; error?: string | undefined },
  ): Promise<SignInStep> {
    const details = await this.#details(provider, req, res);
    if (!details) return { kind: 'refused', refusal: STALE };
    const saved = await this.deps.redis.getdel(this.#stateKey(details.uid));
    const { state, nonce } = saved
      ? (JSON.parse(saved) as { state: string; nonce: string })
      : { state: '', nonce: '' };
    if (!state || !sameText(state, query.state ?? '')) return { kind: 'refused', refusal: STALE };
    const deny = (title: string, hint: string) => this.#refuse(provider, req, res, title, hint);
    if (query.error || !query.code)
      return deny('You did not sign in with Slack.', 'Start again from your assistant to connect it.');
    let identity: Awaited<ReturnType<SignInWithSlack['identify']>>;
    try {
      identity = await this.deps.slack.identify(query.code, `${issuer}${OAUTH_PATHS.signIn}/slack`, nonce);
    } catch (error) {
      if (!(error instanceof SignInFailed)) throw error;
      return deny(
        'Slack did not confirm who you are.',
        'Start again from your assistant; if it keeps happening, tell the people who run the bot.',
      );
    }
    const refused = await this.#personRefusal(identity.team, identity.user);
    if (refused) return deny(refused.title, refused.options.hint);
    const accountId = `${identity.team}:${identity.user}`;
    if (identity.name) await this.deps.redis.set(this.#nameKey(accountId), identity.name, 'PX', STATE_TTL_MS);
    const location = await provider.interactionResult(req, res, { login: { accountId, remember: false } });
    return { kind: 'redirect', location };
  }

  /** `POST /oauth/sign-in/consent`: the person's Allow or Deny (the surface has checked the CSRF token). */
  async decide(
    provider: Provider,
    req: IncomingMessage,
    res: ServerResponse,
    input: { uid: string; allow: boolean },
  ): Promise<SignInStep> {
    const details = await this.#details(provider, req, res);
    if (!details || details.uid !== input.uid || details.prompt.name !== 'consent' || !details.session)
      return { kind: 'refused', refusal: STALE };
    if (!input.allow) {
      const location = await provider.interactionResult(req, res, {
        error: 'access_denied',
        error_description: 'The person declined the assistant’s access.',
      });
      return { kind: 'redirect', location };
    }
    const grantId = await this.#grant(provider, details as ConsentDetails);
    const location = await provider.interactionResult(req, res, { consent: { grantId } });
    return { kind: 'redirect', location };
  }

  async #details(provider: Provider, req: IncomingMessage, res: ServerResponse) {
    try {
      return await provider.interactionDetails(req, res);
    } catch {
      // No interaction cookie, or its interaction is gone (expired, finished): the person starts again.
      return undefined;
    }
  }

  /** Why this person may not sign in (as for minting a token in Slack), or undefined when they may. */
  async #personRefusal(team: string, user: string): Promise<AccessError | undefined> {
    try {
      if (team !== (await this.deps.access.homeTeam())) return new AccessError(AccessErrorCode.External);
      await this.deps.access.requirePerson(user);
      return undefined;
    } catch (error) {
      if (error instanceof AccessError) return error;
      throw error;
    }
  }

  async #refuse(provider: Provider, req: IncomingMessage, res: ServerResponse, title: string, hint: string) {
    const returnTo = await provider.interactionResult(req, res, {
      error: 'access_denied',
      error_description: title,
    });
    return { kind: 'refused' as const, refusal: { title, hint, returnTo } };
  }

  async #consent(provider: Provider, details: InteractionDetails): Promise<ConsentRequest> {
    const accountId = details.session?.accountId ?? '';
    const [, user = ''] = accountId.split(':');
    const clientId = String(details.params.client_id ?? '');
    const client = await provider.Client.find(clientId);
    const redirect = new URL(String(details.params.redirect_uri ?? 'http://invalid'));
    const reach = await this.deps.reach.of(user);
    const labels = [...reach.channels.values()].map((bindings) => bindings[0]?.clientLabel ?? '');
    return {
      uid: details.uid,
      person: { user, name: (await this.deps.redis.get(this.#nameKey(accountId))) ?? undefined },
      client: {
        name: client?.clientName,
        id: clientId,
        byDocument: /^https:\/\//.test(clientId),
        redirectHost: redirect.host,
        redirectOrigin: redirect.origin,
        loopback: isLoopbackHost(redirect.hostname),
      },
      scope: toolScope(String(details.params.scope ?? '')) ?? 'read',
      reach: {
        all: reach.all,
        clients: labels.slice(0, CLIENTS_SHOWN),
        more: Math.max(0, labels.length - CLIENTS_SHOWN),
      },
      accessTokenMinutes: 60,
      grantDays: Math.round(this.deps.grantTtlS / 86_400),
    };
  }

  async #grant(provider: Provider, details: ConsentDetails): Promise<string> {
    const { accountId } = details.session;
    const clientId = String(details.params.client_id ?? '');
    const grant = new provider.Grant({ accountId, clientId });
    const missing = details.prompt.details as {
      missingOIDCScope?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    if (missing.missingOIDCScope?.length) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    const scopes = new Set<string>();
    for (const [indicator, list] of Object.entries(missing.missingResourceScopes ?? {})) {
      grant.addResourceScope(indicator, list.join(' '));
      for (const scope of list) scopes.add(scope);
    }
    const grantId = await grant.save();
    const [team = '', user = ''] = accountId.split(':');
    const client = await provider.Client.find(clientId);
    const now = Date.now();
    await this.deps.grants.add({
      grantId,
      user,
      team,
      clientId,
      clientName: client?.clientName ?? clientId,
      scope: toolScope([...scopes].join(' ')) ?? 'read',
      createdAt: now,
      expiresAt: now + this.deps.grantTtlS * 1_000,
    });
    // A registered client lives as long as its grants; unused, it expires (oauth-store.ts).
    await this.deps.store.keepClient(clientId, this.deps.grantTtlS);
    return grantId;
  }
}

type InteractionDetails = Awaited<ReturnType<Provider['interactionDetails']>>;
type ConsentDetails = InteractionDetails & { session: NonNullable<InteractionDetails['session']> };
