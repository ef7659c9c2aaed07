/**
 * What a person can do about the gateway refusing the key (docs/gateway-api.md §5 rule 4): data only, no
 * imports, so the gateway's errors and the pure views (views/action-result.ts) share one wording.
 */

export const UNAUTHORIZED_ADVICE =
  'The key is missing, invalid, revoked or expired: create a new one in the agency automations area.';

export const FORBIDDEN_ADVICE =
  'The key lacks the scope (read for GET, write for POST) or the client is not linked to the agency that owns the key. A key created before the client was linked may lack access: regenerate the key or re-check its scopes.';
