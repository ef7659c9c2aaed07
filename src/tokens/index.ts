import type Provider from 'oidc-provider';
import type { AccessPolicy, ClientReach } from '../access/index.js';
import { AccessError, AccessErrorCode } from '../access/index.js';
import type { Config } from '../config.js';
import type { AppLogger } from '../logger.js';
import type { Redis } from '../redis/connection.js';
import type { ReplicaWait } from '../redis/replica.js';
import { SignInWithSlack } from '../slack/sign-in-with-slack.js';
import type { AssistantTokenStore, MintInput, MintOutcome, TokenScope } from '../store/index.js';
import type { AuthorizationServerOptions } from './authorization-server.js';
import { GrantIndex } from './grants.js';
import { OAuthStore } from './oauth-store.js';
import { csrfKey } from './server-keys.js';
import { AssistantSignIn } from './sign-in.js';
import { type BearerIdentity, BearerVerifier } from './verify-bearer.js';

/**
 * tokens/ is the feature of assistant access: static `gwb_` tokens minted in Slack (store/assistant-token-store.ts)
 * and the grants people give assistants by signing in (the bot as OAuth authorization server of its own `/mcp`).
 * Its use cases, for every surface: who a bearer token is, a person's assistant access listed and revoked, and
 * the sign-in itself.
 */

export type { MintOutcome } from '../store/index.js';
export { OAUTH_PATHS } from './paths.js';
export type { ConsentRequest, Refusal, SignInStep } from './sign-in.js';

/** A static token or a grant, as `mcp tokens` and Home list them. */
export interface AssistantCredential {
  kind: 'token' | 'grant';
  /** The short public id `mcp revoke` and Home's Revoke take. */
  id: string;
  user: string;
  scope: TokenScope;
  createdAt: number;
  expiresAt: number;
  /** A grant's client, by its self-declared name. */
  clientName?: string | undefined;
  lastUsedAt?: number | undefined;
}

export interface TokenFeatureDeps {
  config: Pick<Config, 'signIn' | 'mcp' | 'redis' | 'slack' | 'assistantTokens'>;
  redis: Redis;
  tokens: AssistantTokenStore;
  access: AccessPolicy;
  reach: ClientReach;
  logger: AppLogger;
  /** Told whose assistant access changed (their Home tab lists it). */
  changed?: (user: string) => Promise<void>;
  /**
   * Waited for after a revoke, before the person is told it took: a failover must not bring the token back
   * (as a job's POST waits after its checkpoint). Absent or 0 ms on a Redis that does not fail over.
   */
  replicaWait?: ReplicaWait;
  /** Certificate authorities trusted for the operator-allowed metadata hosts (tests). */
  metadataCa?: string | undefined;
}

/** The sign-in side, present when the app's OAuth client is configured (SLACK_CLIENT_ID and SECRET). */
export interface SignInFeature {
  flow: AssistantSignIn;
  /** The key the consent form's CSRF tokens are made with. */
  csrfKey: Buffer;
  /** Whether one more client may register now (few enough registered ones wait unused). */
  registrationRoom(): Promise<boolean>;
  /** The authorization server of an issuer (the bot's public address), made once per process. */
  serverFor(issuer: string, errorPage: AuthorizationServerOptions['errorPage']): Promise<Provider>;
}

export interface TokenFeature {
  /** Mints a token for its person within the limits (active tokens a person, mints a minute): every surface's. */
  mint(input: MintInput): Promise<MintOutcome>;
  verifyBearer(secret: string, resource: string): Promise<BearerIdentity | undefined>;
  list(user?: string): Promise<AssistantCredential[]>;
  revokeAs(id: string, by: string, everyone: boolean): Promise<AssistantCredential | undefined>;
  signIn: SignInFeature | undefined;
}

/** At most this many issuers' servers per process (loopback names without PUBLIC_URL: a handful). */
const MAX_ISSUERS = 8;

export function createTokenFeature(deps: TokenFeatureDeps): TokenFeature {
  const { config, redis } = deps;
  const prefix = config.redis.prefix;
  const store = new OAuthStore(redis, prefix);
  const grants = new GrantIndex(redis, prefix, store, deps.changed);
  const verifier = new BearerVerifier(deps.tokens, store, grants);
  const grantTtlS = Math.round(config.mcp.tokenTtlMs / 1_000);
  const asGrant = (g: Awaited<ReturnType<GrantIndex['list']>>[number]): AssistantCredential => ({
    kind: 'grant',
    id: g.id,
    user: g.user,
    scope: g.scope,
    createdAt: g.createdAt,
    expiresAt: g.expiresAt,
    clientName: g.clientName,
    lastUsedAt: g.lastUsedAt,
  });
  // A replica holds the revoke before "refused from now on" is said (slotKey: a key of the prefix's slot).
  const replicated = async (slotKey: string) => {
    await deps.replicaWait
      ?.after(redis, slotKey)
      .catch((e: unknown) => deps.logger.warn('could not wait for a replica to hold a revoke', e));
  };
  const limits = { maxActive: config.assistantTokens.maxActive, rate: config.assistantTokens.mintRate };
  return {
    mint: (input) => deps.tokens.mintWithin(input, limits),
    verifyBearer: (secret, resource) => verifier.verify(secret, resource),
    async list(user) {
      const [tokens, given] = await Promise.all([deps.tokens.list(user), grants.list(user)]);
      const all = [
        ...tokens.map((t): AssistantCredential => ({ kind: 'token', ...t })),
        ...given.map(asGrant),
      ];
      return all.sort((a, b) => b.createdAt - a.createdAt);
    },
    async revokeAs(id, by, everyone) {
      const token = await deps.tokens.revokeAs(id, by, everyone);
      if (token) {
        await replicated(`${prefix}:mcp:tokens`);
        return { kind: 'token', ...token };
      }
      const grant = await grants.get(id);
      // Someone else's grant is answered as an unknown one, as a token is.
      if (!grant || (!everyone && grant.user !== by)) return undefined;
      const revoked = await grants.revoke(id);
      if (revoked) await replicated(`${prefix}:oauth:grants`);
      return revoked && asGrant(revoked);
    },
    signIn: config.signIn ? signInFeature(deps, store, grants, grantTtlS) : undefined,
  };
}

function signInFeature(
  deps: TokenFeatureDeps,
  store: OAuthStore,
  grants: GrantIndex,
  grantTtlS: number,
): SignInFeature | undefined {
  const signIn = deps.config.signIn;
  if (!signIn) return undefined;
  const slack = new SignInWithSlack({ ...signIn, apiUrl: deps.config.slack.apiUrl });
  const servers = new Map<string, Promise<Provider>>();
  // The same rules as for a token minted in Slack, at sign-in and at every token request.
  const personStands = async (team: string, user: string) => {
    try {
      if (team !== (await deps.access.homeTeam())) return false;
      await deps.access.requirePerson(user);
      return true;
    } catch (error) {
      if (error instanceof AccessError && error.code !== AccessErrorCode.Unchecked) return false;
      throw error;
    }
  };
  return {
    flow: new AssistantSignIn({
      redis: deps.redis,
      prefix: deps.config.redis.prefix,
      slack,
      access: deps.access,
      reach: deps.reach,
      store,
      grants,
      grantTtlS,
    }),
    csrfKey: csrfKey(signIn.clientSecret),
    registrationRoom: () => store.registrationRoom(),
    serverFor(issuer, errorPage) {
      let server = servers.get(issuer);
      if (server) return server;
      // Loaded on first use: processes without sign-in never load oidc-provider.
      server = import('./authorization-server.js').then(({ createAuthorizationServer }) =>
        createAuthorizationServer(issuer, {
          store,
          secret: signIn.clientSecret,
          grantTtlS,
          metadataAllowedHosts: signIn.metadataAllowedHosts,
          metadataCa: deps.metadataCa,
          personStands,
          errorPage,
          logger: deps.logger,
        }),
      );
      if (servers.size >= MAX_ISSUERS) servers.delete(servers.keys().next().value as string);
      servers.set(issuer, server);
      return server;
    },
  };
}

// The feature's face: what surfaces and other features use (generated by the import routing; keep it sorted).
export type { BearerIdentity } from './verify-bearer.js';
