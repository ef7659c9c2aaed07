import { createHash } from 'node:crypto';
import type { ConsentRequest, Refusal } from '../tokens/index.js';
import { escapeHtml } from '../views/escape.js';

/**
 * The sign-in pages as HTML: the consent page, a refusal that says why, an error. Pure functions of their data.
 * Safe to serve on the open internet: nothing loaded from elsewhere (the one style sheet is inline and allowed
 * by its hash), no script at all, never framed (`frame-ancestors 'none'`), and every value escaped. Plain,
 * readable, accessible: real headings and lists, a form whose two buttons are reached in reading order by
 * keyboard.
 */

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;color:#1d1d1f;background:#f6f6f6;margin:0}
main{max-width:34rem;margin:2rem auto;background:#fff;padding:1.5rem 2rem;border-radius:8px;border:1px solid #ddd}
h1{font-size:1.4rem;margin-top:0}dt{font-weight:600;margin-top:.75rem}dd{margin:0}
.note{background:#fff6d6;border:1px solid #e0c060;padding:.5rem .75rem;border-radius:4px}
.actions{display:flex;gap:1rem;margin-top:1.5rem}
button{font:inherit;padding:.6rem 1.4rem;border-radius:6px;border:2px solid #1d4e89;cursor:pointer}
button.allow{background:#1d4e89;color:#fff}button.deny{background:#fff;color:#1d4e89}
button:focus-visible,a:focus-visible{outline:3px solid #e08a00;outline-offset:2px}
code{font-size:.9em;word-break:break-all}`;

const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

export interface Page {
  status: number;
  html: string;
  headers: Record<string, string>;
}

/** The headers every sign-in page carries; `formTo`: origins a form on it may end up at (after redirects). */
function headers(formTo: readonly string[] = []): Record<string, string> {
  const formAction = formTo.length ? ["'self'", ...formTo].join(' ') : "'none'";
  return {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy': `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; img-src 'none'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    // Not no-referrer: with it a browser sends `Origin: null` with the consent form, which is refused.
    'referrer-policy': 'same-origin',
  };
}

function layout(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)} · gateway-bot</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`;
}

function reachText(c: ConsentRequest): string {
  if (c.reach.all) return 'Every client of the agency (you are an admin of the bot).';
  if (!c.reach.clients.length)
    return 'None yet: only clients bound to Slack channels you are a member of (join one to reach its client).';
  const more = c.reach.more ? `<li>…and ${c.reach.more} more</li>` : '';
  return `<ul>${c.reach.clients.map((label) => `<li>${escapeHtml(label)}</li>`).join('')}${more}</ul>`;
}

export function consentPage(c: ConsentRequest, csrfToken: string, redirectOrigin: string): Page {
  const who = c.client.name ? `“${escapeHtml(c.client.name)}”` : 'An unnamed assistant';
  const asks =
    c.scope === 'write'
      ? 'Read your clients’ data and ask for actions as you. Deploys and email sends still wait for an approver in Slack.'
      : 'Read your clients’ data as you (no actions).';
  const registered = c.client.byDocument
    ? `Identified by its metadata document at <code>${escapeHtml(c.client.id)}</code>.`
    : 'It registered itself with this server; nothing vouches for its name.';
  const loopback = c.client.loopback
    ? '<p class="note">It returns to a program on your own computer. Allow only if you just started connecting an assistant there.</p>'
    : '';
  const person = c.person.name
    ? `${escapeHtml(c.person.name)} (${escapeHtml(c.person.user)})`
    : escapeHtml(c.person.user);
  const body = `<h1>Allow ${who} to use the gateway bot as you?</h1>
<p>Signed in with Slack as ${person}.</p>
<dl>
<dt>Assistant</dt><dd>${who}: a name the assistant gave itself. ${registered}</dd>
<dt>Returns to</dt><dd><code>${escapeHtml(c.client.redirectHost)}</code></dd>
<dt>It asks to</dt><dd>${asks}</dd>
<dt>Clients it reaches as you</dt><dd>${reachText(c)}</dd>
<dt>How long</dt><dd>An hour at a time, renewed by the assistant for up to ${c.grantDays} days, until you revoke it (<code>/gateway mcp tokens</code>, or the bot’s Home tab in Slack).</dd>
</dl>${loopback}
<form method="post" action="/oauth/sign-in/consent">
<input type="hidden" name="uid" value="${escapeHtml(c.uid)}">
<input type="hidden" name="csrf" value="${escapeHtml(csrfToken)}">
<div class="actions"><button type="submit" name="decision" value="allow" class="allow">Allow</button>
<button type="submit" name="decision" value="deny" class="deny">Deny</button></div>
</form>`;
  return { status: 200, html: layout('Allow access?', body), headers: headers([redirectOrigin]) };
}

export function refusalPage(r: Refusal, status = 403): Page {
  const back = r.returnTo ? `<p><a href="${escapeHtml(r.returnTo)}">Back to the assistant</a></p>` : '';
  const body = `<h1>${escapeHtml(r.title)}</h1><p>${escapeHtml(r.hint)}</p>${back}`;
  return { status, html: layout('Not signed in', body), headers: headers() };
}

/** oidc-provider's errors that have nowhere to redirect to (an unknown client, a redirect URI it did not register). */
export function errorPage(out: { error: string; error_description?: string | undefined }): Page {
  const body = `<h1>The assistant’s sign-in request was refused</h1>
<p>${escapeHtml(out.error_description ?? out.error)}</p>
<p>Error code: <code>${escapeHtml(out.error)}</code>. Tell whoever set the assistant up; nothing was signed in.</p>`;
  return { status: 400, html: layout('Sign-in refused', body), headers: headers() };
}
