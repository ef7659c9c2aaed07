import { describe, expect, it } from 'vitest';
import type { AssistantCredential } from '../../src/tokens/index.js';
import { buildTokenList, buildTokenRevoked } from '../../src/views/token-messages.js';

/** `/gateway mcp tokens` with sign-ins whose clients named themselves at length (a client's name is its own). */
const grant = (i: number, name: string): AssistantCredential => ({
  kind: 'grant',
  id: `g${String(i).padStart(9, '0')}`,
  user: 'UMEMBER',
  scope: 'write',
  createdAt: Date.UTC(2026, 0, 1),
  expiresAt: Date.UTC(2026, 3, 1),
  clientName: name,
  lastUsedAt: undefined,
});

describe('the assistant token list', () => {
  it('cuts a long client name, and every section stays within Slack’s 3,000 characters', () => {
    const tokens = [
      grant(0, 'N'.repeat(4_000)),
      ...Array.from({ length: 39 }, (_, i) => grant(i + 1, 'Claude')),
    ];
    const message = buildTokenList(tokens, true);
    const texts = message.blocks.map((b) => (b as { text: { text: string } }).text.text);
    for (const text of texts) expect(text.length).toBeLessThanOrEqual(3_000);
    const all = texts.join('\n');
    // Every sign-in is listed, the long one too (its name cut): none hides another.
    for (const t of tokens) expect(all).toContain(t.id);
    expect(all).toMatch(/N{59}… \(signed in\)/);
    expect(all).not.toContain('N'.repeat(61));
    expect(buildTokenRevoked(tokens[0] as AssistantCredential, 'UMEMBER').text.length).toBeLessThan(300);
  });
});
