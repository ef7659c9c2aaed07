/**
 * Hosted assistants connect with the URL alone: the official SDK's OAuth client, in both protocol eras, against
 * the bot as its own authorization server (two web processes on one Redis), Sign in with Slack through the
 * stand-in, the consent page, the sandbox gateway. One client identifies itself by a client ID metadata
 * document (served over TLS on loopback, a host the operator allowed), the other registers (DCR). Each
 * discovers, signs in, consents, calls a read tool and an action tool, refreshes and revokes.
 */
import { auth as authV2, Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { auth as authV1 } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/logger.js';
import { type Runtime, startRuntime } from '../../src/runtime.js';
import {
  bind,
  CHANNEL,
  type Harness,
  MEMBER,
  signInEnv,
  startHarness,
  textOf,
} from '../helpers/bot-harness.js';
import { OAuthBrowser } from '../helpers/oauth-browser.js';
import { MemoryOAuthClient } from '../helpers/oauth-client.js';
import { authorizeUrl, callTool, pkce, REDIRECT } from '../helpers/oauth-flow.js';
import { freePorts } from '../helpers/redis-process.js';
import { type DocumentServer, startDocumentServer } from '../helpers/tls-cert.js';

const CLIENT = 'acme-plumbing';

type Called = { structuredContent?: Record<string, unknown>; isError?: boolean; content: { text: string }[] };

describe('assistant sign-in with the SDK’s OAuth client', () => {
  let docs: DocumentServer;
  let h: Harness;
  let second: Runtime;
  let env: Record<string, string>;
  /** The bot's public address, PUBLIC_URL of both processes (the assistants talk to the first). */
  let publicUrl: string;
  const url = () => new URL(`${publicUrl}/mcp`);
  const secondBase = () => `http://127.0.0.1:${second.port}`;

  beforeAll(async () => {
    docs = await startDocumentServer();
    const [port] = await freePorts(1);
    publicUrl = `http://127.0.0.1:${port}`;
    h = await startHarness(
      'e2e-oauth-sdk',
      (slack) => {
        env = {
          ...signInEnv(slack),
          OAUTH_METADATA_ALLOWED_HOSTS: new URL(docs.origin).host,
          PUBLIC_URL: publicUrl,
        };
        return { ...env, PORT: String(port) };
      },
      { metadataCa: docs.ca },
    );
    // A second web process on the same Redis and address: what one revokes, the other refuses at once.
    second = await startRuntime(loadConfig({ ...envOf(h), ...env }), silentLogger(), {
      roles: ['web'],
      metadataCa: docs.ca,
    });
    h.slack.simulate.joinChannel(CHANNEL, MEMBER);
    h.slack.simulate.signInAs(MEMBER);
    await bind(h, CLIENT);
  });
  afterAll(async () => {
    await second?.stop(5_000);
    await h?.close();
    await docs?.close();
  });

  /** The person's side, for the URL the assistant opened: sign in with Slack, Allow; the callback's query. */
  async function personAllows(client: MemoryOAuthClient): Promise<URLSearchParams> {
    if (!client.authorizationUrl) throw new Error('the client never asked to authorize');
    const back = await new OAuthBrowser(REDIRECT).allow(client.authorizationUrl);
    expect(back.searchParams.get('iss')).toBe(publicUrl);
    return back.searchParams;
  }

  async function revoke(client: MemoryOAuthClient, token: string): Promise<number> {
    const res = await fetch(`${publicUrl}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token, client_id: String(client.clientInfo?.client_id) }).toString(),
    });
    return res.status;
  }

  it('2026-07-28 client (@modelcontextprotocol/client 2.4) by metadata document: sign in, read, act, refresh, revoke', async () => {
    const documentUrl = docs.serve('/assistant.json', {
      client_id: `${docs.origin}/assistant.json`,
      client_name: 'Doc Assistant',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    const oauth = new MemoryOAuthClient(REDIRECT, documentUrl, 'Doc Assistant');
    const connect = async () => {
      const client = new Client(
        { name: 'e2e-oauth', version: '1.0.0' },
        { versionNegotiation: { mode: { pin: '2026-07-28' } } },
      );
      const transport = new StreamableHTTPClientTransport(url(), {
        authProvider: oauth as never,
      });
      return { client, transport, connected: client.connect(transport) };
    };
    const first = await connect();
    await expect(first.connected).rejects.toThrow();
    expect(oauth.clientInfo?.client_id).toBe(documentUrl);
    await first.transport.finishAuth(await personAllows(oauth));
    expect(docs.hits.get('/assistant.json')).toBe(1);
    const { client, connected } = await connect();
    await connected;
    const read = (await client.callTool({
      name: 'list_keywords',
      arguments: { client_id: CLIENT, limit: 2 },
    })) as Called;
    expect((read.structuredContent as { rows: unknown[] }).rows).toHaveLength(2);
    const act = (await client.callTool({
      name: 'run_seo_audit',
      arguments: { client_id: CLIENT, url: 'https://acmeplumbing.example/' },
    })) as Called;
    expect(act.isError).toBeFalsy();
    expect(act.structuredContent?.status).toBe('queued');
    await h.message((m) => textOf(m).includes('assistant'));

    // Refresh: a new access token and a rotated refresh token; the old access token still stands until expiry.
    const before = oauth.saved;
    expect(await authV2(oauth as never, { serverUrl: url() })).toBe('AUTHORIZED');
    expect(oauth.saved?.refresh_token).not.toBe(before?.refresh_token);
    expect(oauth.saved?.access_token).not.toBe(before?.access_token);
    const fresh = oauth.saved?.access_token as string;
    expect(
      (
        await callTool(secondBase(), fresh, 'list_keywords', {
          client_id: CLIENT,
          limit: 1,
        })
      ).status,
    ).toBe(200);

    // Revoke (RFC 7009) the refresh token: the grant goes, on every process.
    expect(await revoke(oauth, oauth.saved?.refresh_token as string)).toBe(200);
    for (const base of [publicUrl, secondBase()])
      expect((await callTool(base, fresh, 'list_keywords', { client_id: CLIENT })).status).toBe(401);
    await client.close();
  });

  it('2025-era client (@modelcontextprotocol/sdk 1.32) by dynamic registration: sign in, read, act, refresh, revoke', async () => {
    const oauth = new MemoryOAuthClient(REDIRECT, undefined, 'DCR Assistant');
    const first = new TransportV1(url(), { authProvider: oauth as never });
    await expect(new ClientV1({ name: 'e2e-v1', version: '1' }).connect(first)).rejects.toThrow();
    expect(String(oauth.clientInfo?.client_id)).not.toMatch(/^https:/);
    await first.finishAuth((await personAllows(oauth)).get('code') as string);
    const client = new ClientV1({ name: 'e2e-v1', version: '1' });
    await client.connect(new TransportV1(url(), { authProvider: oauth as never }));
    const read = (await client.callTool({
      name: 'list_citations',
      arguments: { client_id: CLIENT, limit: 3 },
    })) as Called;
    expect((read.structuredContent as { rows: unknown[] }).rows).toHaveLength(3);
    const act = (await client.callTool({
      name: 'refresh_backlinks',
      arguments: { client_id: CLIENT },
    })) as Called;
    expect(act.structuredContent?.status).toBe('queued');

    const before = oauth.saved;
    expect(await authV1(oauth as never, { serverUrl: url() })).toBe('AUTHORIZED');
    expect(oauth.saved?.refresh_token).not.toBe(before?.refresh_token);
    // Revoking the access token (RFC 7009) refuses it at once; the refresh token still renews.
    const access = oauth.saved?.access_token as string;
    expect(await revoke(oauth, access)).toBe(200);
    expect((await callTool(secondBase(), access, 'list_citations', { client_id: CLIENT })).status).toBe(401);
    await client.close();
  });

  it('refuses a metadata document on a private address, and one whose redirect_uris lack the one asked', async () => {
    // `localhost` is not the operator-allowed `127.0.0.1:port`: resolved to loopback, it is refused, unfetched.
    const port = new URL(docs.origin).port;
    const privateDoc = `https://localhost:${port}/private.json`;
    docs.serve('/private.json', { client_id: privateDoc, client_name: 'Private', redirect_uris: [REDIRECT] });
    const lacking = docs.serve('/lacking.json', {
      client_id: `${docs.origin}/lacking.json`,
      client_name: 'Lacking',
      redirect_uris: ['http://127.0.0.1:33418/elsewhere'],
    });
    const base = publicUrl;
    for (const [clientId, error] of [
      [privateDoc, 'invalid_client'],
      [lacking, 'redirect_uri'],
    ] as const) {
      const page = await new OAuthBrowser(REDIRECT).go(
        authorizeUrl(base, { clientId, challenge: pkce().challenge }),
      );
      expect(page.status).toBe(400);
      expect(page.html).toContain(error);
      expect(page.url.searchParams.get('code')).toBeNull();
    }
    expect(docs.hits.get('/private.json')).toBeUndefined();
  });

  it('lists the grants in /gateway mcp tokens and on Home; Revoke in either kills a grant on every process', async () => {
    const signIn = async (name: string) => {
      const oauth = new MemoryOAuthClient(REDIRECT, undefined, name);
      const transport = new StreamableHTTPClientTransport(url(), { authProvider: oauth as never });
      await expect(new Client({ name: 'l', version: '1' }).connect(transport)).rejects.toThrow();
      await transport.finishAuth(await personAllows(oauth));
      return oauth.saved?.access_token as string;
    };
    const refused = async (token: string) => {
      for (const base of [publicUrl, secondBase()])
        expect((await callTool(base, token, 'list_keywords', { client_id: CLIENT })).status).toBe(401);
    };
    const [byCommand, byHome] = [await signIn('Listed A'), await signIn('Listed B')];
    expect(
      (await callTool(publicUrl, byCommand, 'list_keywords', { client_id: CLIENT, limit: 1 })).status,
    ).toBe(200);
    await h.gateway('mcp tokens', { user: MEMBER });
    const list = await h.ephemeral((m) => textOf(m).includes('Listed B'), { user: MEMBER });
    const idOf = (name: string, text: string) => new RegExp(`\`([0-9a-f]{10})\`[ ·]+${name}`).exec(text)?.[1];
    const idA = idOf('Listed A', textOf(list));
    expect(textOf(list)).toMatch(/Listed A \(signed in\) read and act, since \d{4}-\d\d-\d\d, last used/);
    await h.gateway(`mcp revoke ${idA}`, { user: MEMBER });
    await h.ephemeral((m) => textOf(m).includes('sign-in of Listed A') && textOf(m).includes('revoked'), {
      user: MEMBER,
    });
    await refused(byCommand);
    // Home lists the other one, with its Revoke.
    await h.driver.homeOpened({ user: MEMBER });
    const home = await h.slack.waitFor(
      () => {
        const view = h.slack.home(MEMBER);
        return view && JSON.stringify(view.view.blocks).includes('Listed B (signed in)') ? view : undefined;
      },
      { what: 'the grant on Home' },
    );
    const idB = idOf('Listed B', JSON.stringify(home.view.blocks));
    expect(idB).toBeDefined();
    await h.driver.click(home, { actionId: 'home_token_revoke', value: idB as string }, { user: MEMBER });
    await h.slack.waitFor(
      () => !JSON.stringify(h.slack.home(MEMBER)?.view.blocks ?? []).includes('Listed B'),
      {
        what: 'the revoked grant gone from Home',
      },
    );
    await refused(byHome);
  });
});

/** The harness's own configuration as environment (the second process joins its Redis prefix). */
function envOf(h: Harness): Record<string, string> {
  return {
    SLACK_BOT_TOKEN: h.slack.botToken,
    SLACK_SIGNING_SECRET: 'e2e-signing-secret',
    SLACK_API_URL: h.slack.apiUrl,
    PORT: '0',
    REDIS_URL: h.config.redis.url,
    REDIS_PREFIX: h.prefix,
    GATEWAY_BASE_URL: h.sandbox.url,
    GATEWAY_API_KEY: 'sandbox-key',
    GATEWAY_ADMINS: 'UADMIN',
  };
}
