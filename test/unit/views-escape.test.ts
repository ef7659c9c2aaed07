import { describe, expect, it } from 'vitest';
import { code, escapeMrkdwn, mrkdwnLink } from '../../src/views/escape.js';
import { truncate } from '../../src/views/limits.js';

describe('escapeMrkdwn', () => {
  it('makes a channel ping inert', () => {
    expect(escapeMrkdwn('hi <!channel> and <!here>')).toBe('hi &lt;!channel&gt; and &lt;!here&gt;');
  });

  it('makes a forged link and a user mention inert', () => {
    expect(escapeMrkdwn('<https://evil.example|click>')).toBe('&lt;https://evil.example|click&gt;');
    expect(escapeMrkdwn('<@U123>')).toBe('&lt;@U123&gt;');
  });

  it('escapes & first so existing entities are shown literally, not decoded', () => {
    expect(escapeMrkdwn('Tom & Jerry &lt;3')).toBe('Tom &amp; Jerry &amp;lt;3');
  });

  it('removes bidirectional overrides and isolates, which would disguise what follows them', () => {
    expect(escapeMrkdwn('invoice\u202Efdp.exe \u2066x\u2069 \u202A\u202B\u202C\u202D\u2067\u2068')).toBe(
      'invoicefdp.exe x ',
    );
    expect(code('a\u202Eb')).toBe('`ab`');
  });

  it('leaves ordinary text alone', () => {
    expect(escapeMrkdwn('best plumber austin — 5★')).toBe('best plumber austin — 5★');
  });
});

describe('mrkdwnLink', () => {
  it('links an https URL with an escaped label', () => {
    expect(mrkdwnLink('https://acme.example/a?x=1&y=2', 'Acme <b>')).toBe(
      '<https://acme.example/a?x=1&amp;y=2|Acme &lt;b&gt;>',
    );
  });

  it('strips | and > from the URL so the label cannot be forged', () => {
    const out = mrkdwnLink('https://ok.example/|<https://evil.example>', 'safe');
    expect(out).toBe('<https://ok.example/&lt;https://evil.example|safe>');
    expect(out.match(/\|/g)).toHaveLength(1);
  });

  it('refuses other schemes and shows escaped text instead', () => {
    expect(mrkdwnLink('javascript:alert(1)', 'x<y')).toBe('x&lt;y');
    expect(mrkdwnLink('slack://open', undefined)).toBe('slack://open');
  });
});

describe('code', () => {
  it('cannot be broken out of with backticks or newlines', () => {
    expect(code('a`b`c\nd')).toBe('`abc d`');
  });

  it('escapes its content', () => {
    expect(code('<!channel>')).toBe('`&lt;!channel&gt;`');
  });
});

describe('truncate', () => {
  it('returns short text unchanged and long text within the limit with a marker', () => {
    expect(truncate('abc', 3)).toBe('abc');
    const out = truncate('abcdefghij', 5);
    expect(out).toBe('abcd…');
    expect(out.length).toBeLessThanOrEqual(5);
  });

  it('never splits a surrogate pair', () => {
    const text = '😀😀😀😀😀';
    for (let max = 1; max < text.length; max++) {
      const out = truncate(text, max);
      expect(out.length).toBeLessThanOrEqual(max);
      expect(out).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
      expect(out).not.toMatch(/(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
    }
  });

  it('never leaves half an escape entity', () => {
    const text = escapeMrkdwn('a & b & c < d > e');
    for (let max = 1; max < text.length; max++) {
      const out = truncate(text, max);
      expect(out.length).toBeLessThanOrEqual(max);
      // every & in the output starts a complete entity
      expect(out.replace(/&(amp|lt|gt);/g, '')).not.toContain('&');
    }
  });

  it('never leaves half a link', () => {
    const text = `see ${mrkdwnLink('https://acme.example/page', 'the page')} now`;
    for (let max = 1; max < text.length; max++) {
      const out = truncate(text, max);
      expect(out.length).toBeLessThanOrEqual(max);
      const opens = (out.match(/</g) ?? []).length;
      const closes = (out.match(/>/g) ?? []).length;
      expect(opens).toBe(closes);
    }
  });

  it('cuts a plain < that is not a link only where needed', () => {
    expect(truncate('1 < 2 and more text here', 10)).toBe('1 < 2 and…');
  });
});
