import { WebClient } from '@slack/web-api';
import { createRemoteJWKSet, errors as joseErrors, jwtVerify } from 'jose';

/**
 * Sign in with Slack (OpenID Connect) for the assistant sign-in pages: the authorize URL on Slack's web host
 * (`/openid/connect/authorize`, scopes `openid profile`, our workspace, state and nonce), the code exchange
 * (`openid.connect.token`) and who signed in: from the id_token, verified against Slack's keys (issuer,
 * audience, nonce, expiry), or from `openid.connect.userInfo` when Slack gave no id_token.
 */

export interface SignInWithSlackOptions {
  clientId: string;
  clientSecret: string;
  /** Slack's web host without a trailing slash: also the id_token issuer (`https://slack.com`). */
  webUrl: string;
  /** The Web API base (SLACK_API_URL), where `openid.connect.*` are called. */
  apiUrl: string | undefined;
}

/** Who signed in, as Slack says. */
export interface SlackIdentity {
  user: string;
  team: string;
  name: string | undefined;
}

export class SignInFailed extends Error {
  override readonly name = 'SignInFailed';
  constructor(
    readonly code: 'exchange_failed' | 'id_token_invalid' | 'no_identity',
    detail: string,
  ) {
    super(detail);
  }
}

const claimsOf = (claims: Record<string, unknown>): SlackIdentity | undefined => {
  const user = claims['https://slack.com/user_id'] ?? claims.sub;
  const team = claims['https://slack.com/team_id'];
  if (typeof user !== 'string' || typeof team !== 'string') return undefined;
  return { user, team, name: typeof claims.name === 'string' ? claims.name : undefined };
};

export class SignInWithSlack {
  readonly #keys: ReturnType<typeof createRemoteJWKSet>;
  readonly #client: WebClient;

  constructor(private readonly options: SignInWithSlackOptions) {
    this.#keys = createRemoteJWKSet(new URL(`${options.webUrl}/openid/connect/keys`), {
      timeoutDuration: 5_000,
    });
    // A person waits on the other end: a short timeout, few retries, no waiting out a rate limit.
    this.#client = new WebClient(undefined, {
      slackApiUrl: options.apiUrl,
      timeout: 5_000,
      rejectRateLimitedCalls: true,
      retryConfig: { retries: 1 },
    });
  }

  /** Where the person's browser goes to sign in; `team` keeps them to our workspace. */
  authorizeUrl(input: { redirectUri: string; state: string; nonce: string; team: string }): string {
    const url = new URL(`${this.options.webUrl}/openid/connect/authorize`);
    url.search = new URLSearchParams({
      response_type: 'code',
      scope: 'openid profile',
      client_id: this.options.clientId,
      redirect_uri: input.redirectUri,
      state: input.state,
      nonce: input.nonce,
      team: input.team,
    }).toString();
    return url.href;
  }

  /** Exchanges the callback's code and tells who signed in; `nonce` is the one sent with the authorize request. */
  async identify(code: string, redirectUri: string, nonce: string): Promise<SlackIdentity> {
    let answer: { id_token?: string; access_token?: string };
    try {
      answer = await this.#client.openid.connect.token({
        client_id: this.options.clientId,
        client_secret: this.options.clientSecret,
        code,
        redirect_uri: redirectUri,
      });
    } catch (error) {
      const slackCode = (error as { data?: { error?: string } }).data?.error;
      throw new SignInFailed('exchange_failed', `openid.connect.token failed: ${slackCode ?? 'no answer'}`);
    }
    if (answer.id_token) return this.#fromIdToken(answer.id_token, nonce);
    if (!answer.access_token)
      throw new SignInFailed('no_identity', 'Slack returned neither id_token nor token');
    const info = await new WebClient(answer.access_token, {
      slackApiUrl: this.options.apiUrl,
      timeout: 5_000,
      retryConfig: { retries: 1 },
    }).openid.connect.userInfo();
    const identity = claimsOf(info as unknown as Record<string, unknown>);
    if (!identity) throw new SignInFailed('no_identity', 'openid.connect.userInfo named no user and team');
    return identity;
  }

  async #fromIdToken(idToken: string, nonce: string): Promise<SlackIdentity> {
    try {
      const { payload } = await jwtVerify(idToken, this.#keys, {
        issuer: this.options.webUrl,
        audience: this.options.clientId,
        requiredClaims: ['exp', 'iat', 'nonce'],
        clockTolerance: 30,
      });
      if (payload.nonce !== nonce) throw new SignInFailed('id_token_invalid', 'id_token nonce mismatch');
      const identity = claimsOf(payload);
      if (!identity) throw new SignInFailed('no_identity', 'the id_token names no user and team');
      return identity;
    } catch (error) {
      if (error instanceof SignInFailed) throw error;
      const reason = error instanceof joseErrors.JOSEError ? error.code : 'unreadable';
      throw new SignInFailed('id_token_invalid', `id_token refused (${reason})`);
    }
  }
}
