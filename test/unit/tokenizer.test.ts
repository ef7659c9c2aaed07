import { describe, expect, it } from 'vitest';
import { parseMention, splitCommand, TokenizeError, tokenize } from '../../src/commands/tokenizer.js';
import { closestName } from '../../src/reads/closest-name.js';

const word = (value: string) => ({ kind: 'word', value });
const pair = (name: string, value: string) => ({ kind: 'pair', name, value });

describe('tokenize', () => {
  it('splits on any whitespace', () => {
    expect(tokenize('  keywords \t limit=5\n asc ')).toEqual([
      word('keywords'),
      pair('limit', '5'),
      word('asc'),
    ]);
    expect(tokenize('')).toEqual([]);
  });

  it('groups quoted words with straight and smart quotes', () => {
    expect(tokenize('blog "best plumber austin"')).toEqual([word('blog'), word('best plumber austin')]);
    expect(tokenize('blog “best plumber austin”')).toEqual([word('blog'), word('best plumber austin')]);
    expect(tokenize("blog 'best plumber'")).toEqual([word('blog'), word('best plumber')]);
    expect(tokenize('blog ‘best plumber’')).toEqual([word('blog'), word('best plumber')]);
  });

  it('reads name=value pairs, with quoted values', () => {
    expect(tokenize('ideas seed="best plumber" location=austin')).toEqual([
      word('ideas'),
      pair('seed', 'best plumber'),
      pair('location', 'austin'),
    ]);
    expect(tokenize('optimize keyword=“best plumber”')).toEqual([
      word('optimize'),
      pair('keyword', 'best plumber'),
    ]);
    expect(tokenize('x tone=')).toEqual([word('x'), pair('tone', '')]);
  });

  it('keeps a value with = in it and does not make pairs of bad names or quoted text', () => {
    expect(tokenize('url=https://a.example/?x=1')).toEqual([pair('url', 'https://a.example/?x=1')]);
    expect(tokenize('1x=2 =y "a=b"')).toEqual([word('1x=2'), word('=y'), word('a=b')]);
  });

  it('leaves apostrophes inside words alone', () => {
    expect(tokenize("llm acme what's Joe's best")).toEqual([
      word('llm'),
      word('acme'),
      word("what's"),
      word("Joe's"),
      word('best'),
    ]);
    expect(tokenize("gbp 'Joe's pizza'")).toEqual([word('gbp'), word("Joe's pizza")]);
  });

  it('unwraps the forms Slack rewrites links, emails and mentions into', () => {
    expect(tokenize('audit <https://acme.example|acme.example>')).toEqual([
      word('audit'),
      word('https://acme.example'),
    ]);
    expect(tokenize('audit <https://acme.example>')).toEqual([word('audit'), word('https://acme.example')]);
    expect(tokenize('email to=<mailto:a@b.c|a@b.c>')).toEqual([word('email'), pair('to', 'a@b.c')]);
    expect(tokenize('<@U123|ana> <@U456> <#C123|seo> <!subteam^S9|@seo-team>')).toEqual([
      word('<@U123>'),
      word('<@U456>'),
      word('<#C123>'),
      word('<!subteam^S9>'),
    ]);
    expect(tokenize('<!here> <!channel>')).toEqual([word('@here'), word('@channel')]);
  });

  it('decodes the entities Slack sends and keeps a link with a query string whole', () => {
    expect(tokenize('llm "Tom &amp; Jerry" rating&lt;=3 a&gt;b')).toEqual([
      word('llm'),
      word('Tom & Jerry'),
      word('rating<=3'),
      word('a>b'),
    ]);
    expect(tokenize('index <https://a.example/?x=1&amp;y=2>')).toEqual([
      word('index'),
      word('https://a.example/?x=1&y=2'),
    ]);
    // a decoded < is text, never the start of a link
    expect(tokenize('&lt;https://x.example&gt;')).toEqual([word('<https://x.example>')]);
  });

  it('unwraps links inside quotes', () => {
    expect(tokenize('press "see <https://a.example|a.example> now"')).toEqual([
      word('press'),
      word('see https://a.example now'),
    ]);
  });

  it('rejects an unterminated quote with a code and where it starts', () => {
    let error: unknown;
    try {
      tokenize('blog "best plumber austin');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TokenizeError);
    expect((error as TokenizeError).code).toBe('unterminated_quote');
    expect((error as TokenizeError).position).toBe(5);
    expect((error as TokenizeError).message).toContain('character 6');
    expect(() => tokenize('ideas seed=“best plumber')).toThrow(/never closed/);
  });
});

describe('parseMention', () => {
  it('reads canonical mentions and nothing else', () => {
    expect(parseMention('<@U123>')).toEqual({ kind: 'user', id: 'U123' });
    expect(parseMention('<#C1>')).toEqual({ kind: 'channel', id: 'C1' });
    expect(parseMention('<!subteam^S9>')).toEqual({ kind: 'usergroup', id: 'S9' });
    expect(parseMention('U123')).toBeUndefined();
  });
});

describe('splitCommand', () => {
  it('lower-cases the command and returns the rest as arguments', () => {
    expect(splitCommand('GET keywords limit=5')).toEqual({
      command: 'get',
      args: [word('keywords'), pair('limit', '5')],
    });
  });

  it('has no command for empty text or a leading pair', () => {
    expect(splitCommand('   ')).toEqual({ command: undefined, args: [] });
    expect(splitCommand('limit=5').command).toBeUndefined();
  });
});

describe('closestName', () => {
  const known = [
    'help',
    'clients',
    'use',
    'status',
    'get',
    'keywords',
    'reviews',
    'jobs',
    'digest',
    'deploy',
    'geo',
  ];

  it('suggests a command within two edits', () => {
    expect(closestName('keywrods', known)).toBe('keywords');
    expect(closestName('stauts', known)).toBe('status');
    expect(closestName('HLEP', known)).toBe('help');
  });

  it('suggests a command the input starts', () => {
    expect(closestName('dige', known)).toBe('digest');
    expect(closestName('revi', known)).toBe('reviews');
  });

  it('suggests nothing for unrelated input', () => {
    expect(closestName('xylophone', known)).toBeUndefined();
    expect(closestName('zz', known)).toBeUndefined();
    expect(closestName('', known)).toBeUndefined();
  });
});
