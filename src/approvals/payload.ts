import { createHash } from 'node:crypto';

/**
 * The frozen payload of an approval: what an approver sees is exactly what runs. Its hash is
 * taken over a canonical form (keys sorted), shown on the card, kept in the record and the audit log, and
 * compared by the worker before the POST.
 */

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort())
      out[key] = canonical((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}

/** sha256 (hex) of the action, the client and the fields. */
export function payloadHash(action: string, clientId: string, fields: Record<string, unknown>): string {
  return createHash('sha256')
    .update(JSON.stringify(canonical({ action, clientId, fields })))
    .digest('hex');
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** A plain-text preview of an email's html: tags dropped, common entities read, whitespace folded. */
export function htmlPreview(html: string, max = 300): string {
  const text = html
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<br\s*\/?>|<\/p>|<\/div>|<\/li>/gi, ' ')
    .replace(/<[^>]*>/g, '')
    .replace(/&(#\d+|[a-z]+);/gi, (whole, name: string) => {
      if (name.startsWith('#')) {
        const code = Number(name.slice(1));
        return code > 0 && code < 0x110000 ? String.fromCodePoint(code) : whole;
      }
      return ENTITIES[name.toLowerCase()] ?? whole;
    })
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
