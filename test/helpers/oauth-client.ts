/**
 * An assistant's OAuth side for the official SDK clients (both eras): everything it keeps in memory, and the
 * authorization URL it would open in the person's browser, for the test to "open" (test/helpers/oauth-browser.ts).
 * With `clientMetadataUrl` it identifies itself by a client ID metadata document; without, it registers (DCR).
 */

export interface StoredTokens {
  access_token: string;
  refresh_token?: string | undefined;
  token_type: string;
  scope?: string | undefined;
  expires_in?: number | undefined;
  [key: string]: unknown;
}

export class MemoryOAuthClient {
  clientInfo: Record<string, unknown> | undefined;
  saved: StoredTokens | undefined;
  verifier = '';
  discovery: unknown;
  authorizationUrl: URL | undefined;
  readonly tokenHistory: StoredTokens[] = [];

  constructor(
    readonly redirectUrl: string,
    readonly clientMetadataUrl: string | undefined,
    private readonly name = 'E2E Assistant',
  ) {}

  get clientMetadata() {
    return {
      client_name: this.name,
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.clientInfo as never;
  }
  saveClientInformation(info: Record<string, unknown>) {
    this.clientInfo = info;
  }
  tokens() {
    return this.saved as never;
  }
  saveTokens(tokens: StoredTokens) {
    this.saved = tokens;
    this.tokenHistory.push(tokens);
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  saveDiscoveryState(state: unknown) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery as never;
  }
  invalidateCredentials(scope: string) {
    if (scope === 'all' || scope === 'tokens') this.saved = undefined;
    if (scope === 'all' || scope === 'client') this.clientInfo = undefined;
  }
}
