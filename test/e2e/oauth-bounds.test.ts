/**
 * Assistant sign-in, the open doors bounded: what anyone on the internet may make the bot store before a person
 * signs in (authorization requests, sign-in pages, registrations), counted in Redis after real HTTP requests to
 * the bot. The bot runs as behind one reverse proxy (TRUST_PROXY=1): each test sends as its own address
 * (X-Forwarded-For), so the per-address limits of one test do not touch another's.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, MEMBER, signInEnv, startHarness, textOf } from '../helpers/bot-harness.js';
import { OAuthBrowser } from '../helpers/oauth-browser.js';
import { authorizeUrl, baseOf, pkce, REDIRECT } from '../helpers/oauth-flow.js';
import { testRedis } from '../helpers/redis.js';

const HTTPS_REDIRECT = 'https://assistant.example/callback';

describe('assistant sign-in bounds', () => {
  let h: Harness;
  let base: string;
  let redis: ReturnType<typeof testRedis>['redis'];

  const keys = (pattern: string) => redis.keys(`${h.prefix}:oauth:${pattern}`);
  const from = (address: string) => ({ 'x-forwarded-for': `203.0.113.250, ${address}` });

  async function register(address: string, metadata: Record<string, unknown> = {}) {
    const res = await fetch(`${base}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...from(address) },
      body: JSON.stringify({
        client_name: 'Bounds Tester',
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
        ...metadata,
      }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, string> };
  }

  async function authorize(address: string, url: URL) {
    const res = await fetch(url, { headers: from(address), redirect: 'manual' });
    return { status: res.status, location: res.headers.get('location'), html: await res.text(), res };
  }

  beforeAll(async () => {
    h = await startHarness('e2e-oauth-bounds', (slack) => ({ ...signInEnv(slack), TRUST_PROXY: '1' }));
    base = baseOf(h);
    h.slack.simulate.signInAs(MEMBER);
    redis = testRedis(h.prefix).redis;
  });
  afterAll(async () => {
    await redis?.quit();
    await h?.close();
  });

  it('refuses an oversized state with a page before anything is stored', async () => {
    const { client_id: clientId = '' } = (await register('198.51.100.1')).body;
    const before = (await keys('Interaction:*')).length;
    const url = authorizeUrl(base, { clientId, challenge: pkce().challenge });
    url.searchParams.set('state', 's'.repeat(12_000));
    const long = await authorize('198.51.100.1', url);
    expect(long.status).toBe(400);
    expect(long.location).toBeNull();
    expect(long.html).toContain('longer than 4096 bytes');
    url.searchParams.set('state', 's'.repeat(600));
    expect((await authorize('198.51.100.1', url)).html).toContain('state is longer than 512 bytes');
    url.searchParams.set('state', 'short');
    url.searchParams.set('scope', `gateway:read ${'x'.repeat(300)}`);
    expect((await authorize('198.51.100.1', url)).status).toBe(400);
    expect((await keys('Interaction:*')).length).toBe(before);
  });

  it('rate-limits /oauth/authorize per address: a flood keeps at most 30 sign-ins, another sender goes on', async () => {
    const { client_id: clientId = '' } = (await register('198.51.100.2')).body;
    const before = (await keys('Interaction:*')).length;
    const answers: number[] = [];
    for (let i = 0; i < 40; i++)
      answers.push(
        (await authorize('198.51.100.3', authorizeUrl(base, { clientId, challenge: pkce().challenge })))
          .status,
      );
    expect(answers.filter((s) => s === 429)).toHaveLength(10);
    expect((await keys('Interaction:*')).length - before).toBe(30);
    const limited = await authorize(
      '198.51.100.3',
      authorizeUrl(base, { clientId, challenge: 'x'.repeat(43) }),
    );
    expect(limited.res.headers.get('retry-after')).toMatch(/^\d+$/);
    const other = await authorize(
      '198.51.100.4',
      authorizeUrl(base, { clientId, challenge: pkce().challenge }),
    );
    expect(other.status).toBe(303);
  });

  it('keeps one Slack state per sign-in, however often its page is opened', async () => {
    const { client_id: clientId = '' } = (await register('198.51.100.5')).body;
    const browser = new OAuthBrowser(REDIRECT);
    const slack = await browser.go(authorizeUrl(base, { clientId, challenge: pkce().challenge }));
    expect(slack.html).toContain('Continue as');
    const signIn = new URL('/oauth/sign-in', base);
    for (let i = 0; i < 20; i++) {
      const res = await fetch(signIn, {
        headers: { cookie: browser.jar.header(signIn), ...from('198.51.100.5') },
        redirect: 'manual',
      });
      expect(res.status).toBe(303);
      await res.arrayBuffer();
    }
    expect(await keys('slack-state:*')).toHaveLength(1);
    // The newest state is the one that signs in: the whole flow still ends with a code.
    const page = await browser.go(
      (
        await fetch(signIn, { headers: { cookie: browser.jar.header(signIn) }, redirect: 'manual' })
      ).headers.get('location') ?? '',
    );
    const consent = await browser.continueWithSlack(page);
    expect((await browser.decide(consent, 'allow')).url.searchParams.get('code')).toBeTruthy();
  });

  it('caps registrations: the body, each field, the client name; an unused client lives an hour', async () => {
    const name = await register('198.51.100.6', { client_name: 'N'.repeat(2_000) });
    expect(name).toMatchObject({ status: 400, body: { error: 'invalid_client_metadata' } });
    const uris = await register('198.51.100.6', {
      redirect_uris: Array.from({ length: 6 }, (_, i) => `${REDIRECT}/${i}`),
    });
    expect(uris).toMatchObject({
      status: 400,
      body: { error_description: 'redirect_uris (at most 5 entries) is too long' },
    });
    const big = await register('198.51.100.6', { software_id: 'x'.repeat(5_000) });
    expect(big).toMatchObject({ status: 413, body: { error: 'invalid_client_metadata' } });
    const ok = await register('198.51.100.6', { client_name: 'A'.repeat(100) });
    expect(ok.status).toBe(201);
    const key = `${h.prefix}:oauth:Client:${createHash('sha256')
      .update(ok.body.client_id ?? '')
      .digest('hex')}`;
    const ttl = await redis.pttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(3_600_000);
  });

  it('refuses registrations while 500 registered clients wait unused', async () => {
    const unused = `${h.prefix}:oauth:unused-clients`;
    const later = Date.now() + 600_000;
    const filler = Array.from({ length: 500 }, (_, i) => [later, `filler-${i}`]).flat();
    await redis.zadd(unused, ...filler);
    const full = await register('198.51.100.7');
    expect(full.status).toBe(429);
    await redis.zrem(unused, ...Array.from({ length: 500 }, (_, i) => `filler-${i}`));
    expect((await register('198.51.100.7')).status).toBe(201);
  });

  it('counts registrations per sender behind the proxy: one sender’s flood leaves another’s registration alone', async () => {
    const flood: number[] = [];
    for (let i = 0; i < 12; i++) flood.push((await register('198.51.100.8')).status);
    expect(flood.filter((s) => s === 429).length).toBe(2);
    expect((await register('198.51.100.9')).status).toBe(201);
  });

  it('shows an untrusted client’s error as a page, and redirects it once someone allowed the client', async () => {
    const { client_id: clientId = '' } = (
      await register('198.51.100.10', { redirect_uris: [HTTPS_REDIRECT] })
    ).body;
    const noPkce = authorizeUrl(base, { clientId, redirectUri: HTTPS_REDIRECT });
    const page = await authorize('198.51.100.10', noPkce);
    expect(page.status).toBe(400);
    expect(page.location).toBeNull();
    expect(page.html).toContain('invalid_request');
    // Someone of the workspace allows it: its errors go back to it from then on.
    const back = await new OAuthBrowser(HTTPS_REDIRECT).allow(
      authorizeUrl(base, { clientId, redirectUri: HTTPS_REDIRECT, challenge: pkce().challenge }),
    );
    expect(back.searchParams.get('code')).toBeTruthy();
    const redirected = await authorize('198.51.100.10', noPkce);
    expect(redirected.status).toBe(303);
    expect(new URL(redirected.location ?? '').searchParams.get('error')).toBe('invalid_request');
  });

  it('lists 20 sign-ins of clients with the longest names allowed in /gateway mcp tokens, names cut', async () => {
    const name = `Verbose ${'V'.repeat(92)}`;
    const { client_id: clientId = '' } = (await register('198.51.100.11', { client_name: name })).body;
    for (let i = 0; i < 20; i++) {
      const url = authorizeUrl(base, { clientId, challenge: pkce().challenge });
      const back = await new OAuthBrowser(REDIRECT).allow(url);
      expect(back.searchParams.get('code')).toBeTruthy();
    }
    await h.gateway('mcp tokens', { user: MEMBER });
    const list = await h.ephemeral((m) => textOf(m).includes('Verbose'), { user: MEMBER });
    const text = textOf(list);
    expect(text).not.toContain('Something went wrong');
    expect(text.split(`${name.slice(0, 59)}… (signed in)`)).toHaveLength(21);
    expect(text).not.toContain(name);
  });

  it('reports Redis memory and its limit in /metrics', async () => {
    const text = await (await fetch(`${base}/metrics`)).text();
    const used = Number(/^gateway_bot_redis_used_memory_bytes (\d+)/m.exec(text)?.[1]);
    expect(used).toBeGreaterThan(0);
    expect(text).toMatch(/^gateway_bot_redis_maxmemory_bytes \d+/m);
  });
});
