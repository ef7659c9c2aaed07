/** Where the authorization server and its sign-in pages answer, on the bot's public address. */
export const OAUTH_PATHS = {
  authorize: '/oauth/authorize',
  token: '/oauth/token',
  register: '/oauth/register',
  revoke: '/oauth/revoke',
  jwks: '/oauth/jwks',
  /** The sign-in pages: where oidc-provider sends the browser to sign in and consent. */
  signIn: '/oauth/sign-in',
} as const;
