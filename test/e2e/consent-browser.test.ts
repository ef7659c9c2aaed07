/**
 * The consent page in a real browser: Debian's Chromium, headless, driven by playwright-core, with JavaScript
 * off (the pages need none). Sign in with Slack on the stand-in's page, see the consent page, press Allow with
 * the keyboard and land on the assistant's redirect with a code; press Deny and land with access_denied; framed
 * by another page, it does not show. A screenshot of the page is kept in test/artifacts/ (not committed).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bind, CHANNEL, type Harness, MEMBER, signInEnv, startHarness } from '../helpers/bot-harness.js';
import { authorizeUrl, baseOf, pkce, registeredClient } from '../helpers/oauth-flow.js';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = join(import.meta.dirname, '..', 'artifacts');

describe.skipIf(!existsSync(CHROMIUM))('the consent page in Chromium', () => {
  let h: Harness;
  let browser: Browser;
  let clientId: string;
  /** The assistant's own callback: a real page on loopback, where the browser lands. */
  let callback: Server;
  let redirect: string;

  beforeAll(async () => {
    callback = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/plain' }).end('assistant callback'),
    );
    await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
    redirect = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
    [h, browser] = await Promise.all([
      startHarness('e2e-consent-browser', (slack) => signInEnv(slack)),
      chromium.launch({
        executablePath: CHROMIUM,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
      }),
    ]);
    h.slack.simulate.joinChannel(CHANNEL, MEMBER);
    h.slack.simulate.signInAs(MEMBER);
    await bind(h, 'acme-plumbing');
    clientId = await registeredClient(baseOf(h), { client_name: 'Claude', redirect_uris: [redirect] });
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
    callback?.closeAllConnections();
    callback?.close();
  });

  /** A fresh browser (no JavaScript) up to the consent page; the assistant's redirect is answered here. */
  async function toConsent(): Promise<Page> {
    const context = await browser.newContext({
      javaScriptEnabled: false,
      viewport: { width: 760, height: 900 },
    });
    context.setDefaultTimeout(5_000);
    const page = await context.newPage();
    await page.goto(
      authorizeUrl(baseOf(h), { clientId, challenge: pkce().challenge, redirectUri: redirect }).href,
    );
    await page.getByRole('button', { name: /Continue as Bob Member/ }).click();
    await page.getByRole('heading', { name: /Allow “Claude” to use the gateway bot as you\?/ }).waitFor();
    return page;
  }

  it('signs in, shows the consent page (never framed), and Allow by keyboard lands on the redirect with a code', async () => {
    const page = await toConsent();
    // Framed by another page in the same browser, the very consent page does not show.
    const framer = await page.context().newPage();
    await framer.setContent(
      `<h1>Win a prize</h1><iframe src="${page.url()}" width="600" height="600"></iframe>`,
    );
    await framer.waitForLoadState('load');
    expect(await framer.locator('iframe').contentFrame().getByRole('button', { name: 'Allow' }).count()).toBe(
      0,
    );
    expect(framer.frames()[1]?.url()).not.toBe(page.url());
    await framer.close();
    await expect(page.getByText('Acme Plumbing & Heating')).toBeTruthy();
    expect(await page.getByText('Deploys and email sends still wait for an approver in Slack.').count()).toBe(
      1,
    );
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'consent-page.png'), fullPage: true });
    // Focus order: the first stop is Allow, then Deny.
    await page.keyboard.press('Tab');
    expect(await page.locator(':focus').textContent()).toBe('Allow');
    await Promise.all([page.waitForURL(`${redirect}**`), page.keyboard.press('Enter')]);
    const landed = new URL(page.url());
    expect(landed.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(landed.searchParams.get('iss')).toBe(baseOf(h));
    await page.context().close();
  });

  it('Deny lands on the redirect with error=access_denied', async () => {
    const page = await toConsent();
    await Promise.all([page.waitForURL(`${redirect}**`), page.getByRole('button', { name: 'Deny' }).click()]);
    const landed = new URL(page.url());
    expect(landed.searchParams.get('error')).toBe('access_denied');
    expect(landed.searchParams.get('code')).toBeNull();
    await page.context().close();
  });
});
