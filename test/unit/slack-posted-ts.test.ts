import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { postedTs } from '../../src/slack/chat-post.js';

/** What a whole parse says: the ts of an answer with `"ok":true` and a string ts, else nothing. */
function parsedTs(text: string): string | undefined {
  const value = JSON.parse(text) as { ok?: unknown; ts?: unknown };
  return value.ok === true && typeof value.ts === 'string' ? value.ts : undefined;
}

describe('postedTs (chat.postMessage answers read without parsing the echoed message)', () => {
  it('reads the top-level ts, never one inside the echoed message', () => {
    const answer = JSON.stringify({
      ok: true,
      channel: 'C1',
      message: {
        ts: '1.000001',
        text: 'a "quoted" {brace} [and] \\ backslash, "ts":"2.0"',
        blocks: [{ ts: '3' }],
      },
      ts: '1700000000.000100',
    });
    expect(postedTs(answer)).toBe('1700000000.000100');
    expect(postedTs(' {\n "ok" : true ,\t"ts" : "1.5" } ')).toBe('1.5');
  });

  it('reads nothing from a failure or an answer it cannot read (the caller parses those whole)', () => {
    expect(postedTs('{"ok":false,"error":"not_in_channel"}')).toBeUndefined();
    expect(postedTs('{"ok":true}')).toBeUndefined();
    expect(postedTs('{"ok":"true","ts":"1.0"}')).toBeUndefined();
    expect(postedTs('{"ok":true,"ts":1.0}')).toBeUndefined();
    expect(postedTs('{"ok":true,"ts":"1.0"')).toBeUndefined();
    expect(postedTs('[{"ok":true,"ts":"1.0"}]')).toBeUndefined();
    expect(postedTs('')).toBeUndefined();
  });

  it('agrees with a whole parse on any answer', () => {
    const answer = fc.record(
      {
        ok: fc.oneof(fc.boolean(), fc.constant('true'), fc.integer()),
        ts: fc.oneof(fc.string(), fc.double({ noNaN: true, noDefaultInfinity: true })),
        channel: fc.string(),
        message: fc.jsonValue(),
        warning: fc.string(),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(answer, fc.integer({ min: 0, max: 2 }), (value, indent) => {
        const text = JSON.stringify(value, null, indent);
        expect(postedTs(text)).toBe(parsedTs(text));
      }),
      { numRuns: 2_000 },
    );
  });
});
