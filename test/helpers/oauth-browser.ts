/**
 * A person's browser for the assistant sign-in, as plain HTTP: it follows redirects, keeps cookies per host and
 * path, and presses the buttons of the stand-in's Slack sign-in page and of the bot's consent page (both plain
 * forms). It stops at the assistant's own redirect URI and hands back that URL (with `code` or `error`).
 */

interface Cookie {
  value: string;
  path: string;
}

class CookieJar {
  readonly #byHost = new Map<string, Map<string, Cookie>>();

  store(url: URL, headers: Headers): void {
    for (const line of headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';').map((p) => p.trim());
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      const path = attributes.find((a) => /^path=/i.test(a))?.slice(5) ?? '/';
      const expired = attributes.some((a) => /^max-age=0$/i.test(a) || /^expires=thu, 01 jan 1970/i.test(a));
      const jar = this.#byHost.get(url.host) ?? new Map<string, Cookie>();
      this.#byHost.set(url.host, jar);
      if (expired || value === '') jar.delete(`${name};${path}`);
      else jar.set(`${name};${path}`, { value, path });
    }
  }

  header(url: URL): string {
    const jar = this.#byHost.get(url.host) ?? new Map<string, Cookie>();
    return [...jar.entries()]
      .filter(
        ([, c]) =>
          url.pathname === c.path || url.pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`),
      )
      .map(([key, c]) => `${key.split(';')[0]}=${c.value}`)
      .join('; ');
  }

  /** Drops one cookie everywhere (a test of a form posted without it). */
  forget(name: string): void {
    for (const jar of this.#byHost.values())
      for (const key of [...jar.keys()]) if (key.startsWith(`${name};`)) jar.delete(key);
  }
}

export interface Landing {
  url: URL;
  status: number;
  html: string;
  headers: Headers;
}

/** The value of a form input by name in an HTML page. */
const inputValue = (html: string, name: string) =>
  new RegExp(`name="${name}" value="([^"]*)"`)
    .exec(html)?.[1]
    ?.replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n)));

export class OAuthBrowser {
  readonly jar = new CookieJar();

  constructor(private readonly stopAt: string) {}

  /** Requests `url` and follows redirects until a page, or the assistant's redirect URI (not requested). */
  async go(
    url: string | URL,
    init: { method?: string; form?: Record<string, string>; origin?: string } = {},
  ): Promise<Landing> {
    let target = new URL(url);
    let method = init.method ?? 'GET';
    let body: string | undefined = init.form ? new URLSearchParams(init.form).toString() : undefined;
    for (let hop = 0; hop < 20; hop += 1) {
      if (target.href.startsWith(this.stopAt))
        return { url: target, status: 0, html: '', headers: new Headers() };
      const headers: Record<string, string> = { cookie: this.jar.header(target) };
      if (body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
      if (init.origin && method === 'POST') headers.origin = init.origin;
      const res = await fetch(target, {
        method,
        headers,
        redirect: 'manual',
        ...(body === undefined ? {} : { body }),
      });
      this.jar.store(target, res.headers);
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location) {
        await res.arrayBuffer();
        target = new URL(location, target);
        method = 'GET';
        body = undefined;
        continue;
      }
      return { url: target, status: res.status, html: await res.text(), headers: res.headers };
    }
    throw new Error(`too many redirects from ${String(url)}`);
  }

  /** Presses "Continue" on the stand-in's Slack sign-in page. */
  async continueWithSlack(page: Landing): Promise<Landing> {
    const names = ['client_id', 'redirect_uri', 'scope', 'response_type', 'state', 'nonce', 'team', 'user'];
    const form = Object.fromEntries(names.map((n) => [n, inputValue(page.html, n) ?? '']));
    return this.go(new URL('/openid/connect/authorize', page.url), { method: 'POST', form });
  }

  /** Presses Allow or Deny on the consent page. */
  async decide(
    page: Landing,
    decision: 'allow' | 'deny',
    override: { csrf?: string } = {},
  ): Promise<Landing> {
    const form = {
      uid: inputValue(page.html, 'uid') ?? '',
      csrf: override.csrf ?? inputValue(page.html, 'csrf') ?? '',
      decision,
    };
    return this.go(new URL('/oauth/sign-in/consent', page.url), {
      method: 'POST',
      form,
      origin: page.url.origin,
    });
  }

  /** The whole sign-in: authorize URL → Slack → consent page (returned, not yet answered). */
  async toConsent(authorizationUrl: string | URL): Promise<Landing> {
    const slack = await this.go(authorizationUrl);
    if (!slack.html.includes('Continue as')) return slack;
    return this.continueWithSlack(slack);
  }

  /** Signs in and allows: the assistant's redirect URL with its code. */
  async allow(authorizationUrl: string | URL): Promise<URL> {
    const consent = await this.toConsent(authorizationUrl);
    if (consent.status !== 200 || !consent.html.includes('Allow'))
      throw new Error(`no consent page: ${consent.status} ${consent.html.slice(0, 300)}`);
    return (await this.decide(consent, 'allow')).url;
  }
}
