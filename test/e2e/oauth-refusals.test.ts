/**
 * Assistant sign-in, every refusal: the bot as the authorization server of its own /mcp against the Slack
 * stand-in (Sign in with Slack), the sandbox and Redis, one step of an otherwise honest flow bent at a time.
 * Each test asserts what the client got and that no token came of it (a tool call with whatever was issued).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bind, CHANNEL, type Harness, MEMBER, signInEnv, startHarness } from '../helpers/bot-harness.js';
import { OAuthBrowser } from '../helpers/oauth-browser.js';
import {
  authorizedCode,
  authorizeUrl,
  baseOf,
  callTool,
  exchange,
  pkce,
  REDIRECT,
  refresh,
  register,
  registeredClient,
} from '../helpers/oauth-flow.js';
import { testRedis } from '../helpers/redis.js';

const CLIENT = 'acme-plumbing';

describe('assistant sign-in refusals', () => {
  let h: Harness;
  let base: string;
  /** Two registered clients the tests share (registration is rate-limited; codes and grants are per test). */
  let clientId: string;
  let otherClient: string;

  beforeAll(async () => {
    h = await startHarness('e2e-oauth-refusals', (slack) => signInEnv(slack), { userCacheMs: 50 });
    base = baseOf(h);
    h.slack.simulate.joinChannel(CHANNEL, MEMBER);
    h.slack.simulate.signInAs(MEMBER);
    await bind(h, CLIENT);
    clientId = await registeredClient(base);
    otherClient = await registeredClient(base, { redirect_uris: [REDIRECT, 'http://127.0.0.1:33418/other'] });
  });
  afterAll(async () => h?.close());

  async function tokensFor(scope?: string) {
    const code = await authorizedCode(base, clientId, scope ? { scope } : {});
    const { status, body } = await exchange(base, code);
    expect(status).toBe(200);
    return body as { access_token: string; refresh_token: string; scope: string };
  }

  it('refuses a wrong PKCE verifier, and issues nothing', async () => {
    const code = await authorizedCode(base, clientId);
    const wrong = await exchange(base, { ...code, verifier: pkce().verifier });
    expect(wrong).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(wrong.body.access_token).toBeUndefined();
  });

  it('refuses an authorization request without PKCE, or with plain PKCE', async () => {
    for (const url of [
      authorizeUrl(base, { clientId }),
      authorizeUrl(base, { clientId, challenge: 'a'.repeat(43), method: 'plain' }),
    ]) {
      const back = await new OAuthBrowser(REDIRECT).go(url);
      expect(back.url.searchParams.get('error')).toBe('invalid_request');
      expect(back.url.searchParams.get('code')).toBeNull();
    }
  });

  it('refuses a reused code and revokes what the first use issued', async () => {
    const code = await authorizedCode(base, clientId);
    const first = await exchange(base, code);
    expect(first.status).toBe(200);
    expect(
      (
        await callTool(base, first.body.access_token as string, 'list_keywords', {
          client_id: CLIENT,
          limit: 1,
        })
      ).status,
    ).toBe(200);
    const again = await exchange(base, code);
    expect(again).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(
      (await callTool(base, first.body.access_token as string, 'list_keywords', { client_id: CLIENT }))
        .status,
    ).toBe(401);
    expect((await refresh(base, clientId, first.body.refresh_token as string)).body.error).toBe(
      'invalid_grant',
    );
  });

  it('refuses a code presented by another client or with another redirect URI', async () => {
    const code = await authorizedCode(base, clientId);
    expect(await exchange(base, code, { client_id: otherClient })).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant' },
    });
    const code2 = await authorizedCode(base, otherClient);
    const otherRedirect = await exchange(base, code2, {
      client_id: otherClient,
      redirect_uri: 'http://127.0.0.1:33418/other',
    });
    expect(otherRedirect.body.access_token).toBeUndefined();
    expect(otherRedirect.status).toBe(400);
  });

  it('issues no token for another resource, requires the resource, and a token works on its own server only', async () => {
    const { challenge } = pkce();
    const elsewhere = await new OAuthBrowser(REDIRECT).go(
      authorizeUrl(base, { clientId, challenge, resource: 'https://other.example/mcp' }),
    );
    expect(elsewhere.url.searchParams.get('error')).toBe('invalid_target');
    const none = await new OAuthBrowser(REDIRECT).go(
      authorizeUrl(base, { clientId, challenge, resource: null }),
    );
    expect(none.url.searchParams.get('error')).toBe('invalid_target');
    const code = await authorizedCode(base, clientId);
    const noResource = await exchange(base, code, { resource: '' });
    expect(noResource).toMatchObject({ status: 400, body: { error: 'invalid_target' } });
    // The same bot under another name is another resource: its token is refused there.
    const { access_token } = await tokensFor();
    const other = baseOf(h, 'localhost');
    expect((await callTool(other, access_token, 'list_keywords', { client_id: CLIENT })).status).toBe(401);
    expect(
      (await callTool(base, access_token, 'list_keywords', { client_id: CLIENT, limit: 1 })).status,
    ).toBe(200);
  });

  it('rotates refresh tokens, and a refresh token used twice revokes the whole grant', async () => {
    const first = await tokensFor();
    const rotated = await refresh(base, clientId, first.refresh_token);
    expect(rotated.status).toBe(200);
    expect(rotated.body.refresh_token).not.toBe(first.refresh_token);
    const replayed = await refresh(base, clientId, first.refresh_token);
    expect(replayed).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    // The grant is gone: the newest refresh token and every access token with it.
    expect((await refresh(base, clientId, rotated.body.refresh_token as string)).body.error).toBe(
      'invalid_grant',
    );
    for (const token of [first.access_token, rotated.body.access_token as string])
      expect((await callTool(base, token, 'list_keywords', { client_id: CLIENT })).status).toBe(401);
  });

  it('keeps no token or code in Redis, only their hashes', async () => {
    const code = await authorizedCode(base, clientId);
    const { body } = await exchange(base, code);
    const secrets = [code.code, body.access_token as string, body.refresh_token as string];
    const { redis } = testRedis(h.prefix);
    const keys = await redis.keys(`${h.prefix}:oauth:*`);
    expect(keys.length).toBeGreaterThan(5);
    let dump = keys.join('\n');
    for (const key of keys) {
      const type = await redis.type(key);
      if (type === 'hash') dump += JSON.stringify(await redis.hgetall(key));
      else if (type === 'string') dump += await redis.get(key);
      else if (type === 'set') dump += (await redis.smembers(key)).join(',');
      else if (type === 'zset') dump += (await redis.zrange(key, 0, -1)).join(',');
    }
    await redis.quit();
    for (const secret of secrets) expect(dump).not.toContain(secret);
    // The token still works: it is found by its hash.
    expect(
      (await callTool(base, body.access_token as string, 'list_keywords', { client_id: CLIENT, limit: 1 }))
        .status,
    ).toBe(200);
  });

  it('refuses a redirect URI that is neither https nor loopback http, and compares redirect URIs exactly', async () => {
    const bad = await register(base, { redirect_uris: ['http://evil.example/callback'] });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toBe('invalid_redirect_uri');
    const { challenge } = pkce();
    const otherPort = await new OAuthBrowser('http://never/').go(
      authorizeUrl(base, { clientId, challenge, redirectUri: 'http://127.0.0.1:33419/callback' }),
    );
    expect(otherPort.status).toBe(400);
    expect(otherPort.html).toContain('redirect_uri');
    expect(otherPort.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });

  it('refuses people of another workspace and guests, with a page that says why', async () => {
    for (const [user, why] of [
      ['UEXTERNAL', 'only for people of the workspace'],
      ['UGUEST', 'Guests cannot use the gateway bot'],
    ] as const) {
      h.slack.simulate.signInAs(user);
      const { challenge } = pkce();
      const browser = new OAuthBrowser(REDIRECT);
      const page = await browser.toConsent(authorizeUrl(base, { clientId, challenge }));
      expect(page.status).toBe(403);
      expect(page.html).toContain(why);
      expect(page.html).not.toContain('name="csrf"');
      // Its link goes back to the assistant with access_denied, never with a code.
      const back = /href="([^"]+)"/.exec(page.html)?.[1]?.replace(/&#38;/g, '&') ?? '';
      const landing = await browser.go(new URL(back, base));
      expect(landing.url.searchParams.get('error')).toBe('access_denied');
    }
    h.slack.simulate.signInAs(MEMBER);
  });

  it('refuses a forged consent POST (no CSRF token, another session’s), and the page may not be framed', async () => {
    const { challenge } = pkce();
    const browser = new OAuthBrowser(REDIRECT);
    const consent = await browser.toConsent(authorizeUrl(base, { clientId, challenge }));
    expect(consent.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(consent.headers.get('x-frame-options')).toBe('DENY');
    expect(consent.headers.get('set-cookie')).toMatch(
      /gw_consent=[^;]+; Path=\/oauth\/sign-in; Max-Age=600; HttpOnly; SameSite=Lax/,
    );
    const empty = await browser.decide(consent, 'allow', { csrf: '' });
    expect(empty.status).toBe(403);
    // Another browser's valid token, with this browser's cookie.
    const other = new OAuthBrowser(REDIRECT);
    const otherConsent = await other.toConsent(authorizeUrl(base, { clientId, challenge: pkce().challenge }));
    const stolen = /name="csrf" value="([^"]+)"/.exec(otherConsent.html)?.[1] ?? '';
    expect((await browser.decide(consent, 'allow', { csrf: stolen })).status).toBe(403);
    // Without the cookie at all.
    browser.jar.forget('gw_consent');
    expect((await browser.decide(consent, 'allow')).status).toBe(403);
    // From another site (Origin), even with the right token.
    const honest = await other.go(new URL('/oauth/sign-in/consent', base), {
      method: 'POST',
      form: {
        uid: /name="uid" value="([^"]+)"/.exec(otherConsent.html)?.[1] ?? '',
        csrf: stolen,
        decision: 'allow',
      },
      origin: 'https://evil.example',
    });
    expect(honest.status).toBe(403);
    // The honest press still works.
    expect((await other.decide(otherConsent, 'allow')).url.searchParams.get('code')).toBeTruthy();
  });

  it('a read-only grant calling an action tool gets the scope step-up; a person made a guest loses the grant’s power', async () => {
    const read = await tokensFor('gateway:read');
    expect(read.scope).toBe('gateway:read');
    const act = await callTool(base, read.access_token, 'run_seo_audit', {
      client_id: CLIENT,
      url: 'https://acmeplumbing.example/',
    });
    // MCP 2025-11-25, scope challenge: 403 and the scope to ask the person for, before anything runs.
    expect(act.status).toBe(403);
    expect(act.challenge).toMatch(
      /^Bearer error="insufficient_scope", scope="gateway:act", resource_metadata="http:\/\/[^"]+\/\.well-known\/oauth-protected-resource\/mcp"/,
    );
    expect(act.body.error).toMatchObject({ code: -32003 });
    expect(h.sandbox.requests().filter((r) => r.method === 'POST')).toHaveLength(0);
    h.slack.simulate.addUser({ id: MEMBER, name: 'bob', real_name: 'Bob Member', is_restricted: true });
    await new Promise((r) => setTimeout(r, 80)); // the user cache (userCacheMs: 50) must expire first
    expect((await callTool(base, read.access_token, 'list_keywords', { client_id: CLIENT })).status).toBe(
      403,
    );
    expect((await refresh(base, clientId, read.refresh_token)).body.error).toBe('invalid_grant');
    h.slack.simulate.addUser({ id: MEMBER, name: 'bob', real_name: 'Bob Member' });
  });

  it('rate-limits dynamic registration', async () => {
    const answers = await Promise.all(Array.from({ length: 15 }, () => register(base)));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    expect(answers.find((r) => r.status === 429)?.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});
