import { describe, expect, it } from 'vitest';
import { consentPage, errorPage, refusalPage } from '../../src/oauth/sign-in-pages.js';
import type { ConsentRequest } from '../../src/tokens/index.js';

const consent = (over: Partial<ConsentRequest['client']> = {}): ConsentRequest => ({
  uid: 'uid-1',
  person: { user: 'UMEMBER', name: 'Bob <b>Member</b>' },
  client: {
    name: '<img src=x onerror=alert(1)>',
    id: 'c1',
    byDocument: false,
    redirectHost: 'app.example:443',
    redirectOrigin: 'https://app.example',
    loopback: false,
    ...over,
  },
  scope: 'read',
  reach: { all: false, clients: ['Acme & Sons'], more: 3 },
  accessTokenMinutes: 60,
  grantDays: 90,
});

describe('sign-in pages', () => {
  it('escapes what the client and the person declared, and loads nothing from elsewhere', () => {
    const page = consentPage(consent(), 'tok"en', 'https://app.example');
    expect(page.html).not.toContain('<img');
    expect(page.html).toContain('&#60;img src=x onerror=alert(1)&#62;');
    expect(page.html).toContain('Bob &#60;b&#62;Member&#60;/b&#62;');
    expect(page.html).toContain('value="tok&#34;en"');
    expect(page.html).toContain('Acme &#38; Sons');
    expect(page.html).toContain('…and 3 more');
    expect(page.html).not.toMatch(/<script|src=["']?http|href=["']?http|@import/);
    expect(page.html).toContain('Read your clients’ data as you (no actions).');
  });

  it('forbids framing and scripts, and lets the form end at the client’s redirect origin only', () => {
    const csp = consentPage(consent(), 't', 'https://app.example').headers['content-security-policy'];
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("form-action 'self' https://app.example");
    expect(refusalPage({ title: 't', hint: 'h' }).headers['content-security-policy']).toContain(
      "form-action 'none'",
    );
    expect(errorPage({ error: 'invalid_client' }).headers['x-frame-options']).toBe('DENY');
  });

  it('warns when the assistant returns to the person’s own machine, and names a metadata document', () => {
    const local = consentPage(
      consent({ loopback: true, byDocument: true, id: 'https://c.example/doc.json' }),
      't',
      'http://127.0.0.1:9',
    );
    expect(local.html).toContain('a program on your own computer');
    expect(local.html).toContain('https://c.example/doc.json');
  });
});
