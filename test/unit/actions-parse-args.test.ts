import { describe, expect, it } from 'vitest';
import { buildCatalogue } from '../../src/actions/catalogue.js';
import { parseActionArgs, validateActionFields } from '../../src/actions/parse-args.js';
import { tokenize } from '../../src/commands/tokenizer.js';

const catalogue = buildCatalogue(undefined, { guardedActions: ['deploy_blog', 'send_prospect_email'] });
const entry = (command: string) => {
  const found = catalogue.byCommand(command);
  if (!found) throw new Error(`no entry for ${command}`);
  return found;
};
const parse = (command: string, args: string) => parseActionArgs(entry(command), tokenize(args));

function errorsOf(command: string, args: string): Record<string, string> {
  const result = parse(command, args);
  if (result.kind !== 'invalid') throw new Error(`expected invalid, got ${JSON.stringify(result)}`);
  return result.errors;
}

describe('parsing action arguments: refusals a person understands', () => {
  it('refuses a URL that is not http(s), naming the field', () => {
    expect(errorsOf('audit', 'acme.example')).toEqual({
      url: expect.stringMatching(/Page URL must be a web address starting with http:\/\/ or https:\/\//),
    });
    expect(errorsOf('audit', 'ftp://acme.example/x').url).toMatch(/http/);
    expect(errorsOf('outreach', 'javascript:alert(1)').prospectUrl).toMatch(
      /Prospect URL must be a web address/,
    );
  });

  it('refuses a latitude of 91 and a longitude of 181', () => {
    expect(errorsOf('grid', 'plumber 91 10')).toEqual({ lat: 'Latitude must be a number from -90 to 90' });
    expect(errorsOf('grid', 'plumber 10 -181')).toEqual({
      lng: 'Longitude must be a number from -180 to 180',
    });
    expect(errorsOf('grid', 'plumber north 10').lat).toBe('Latitude must be a number from -90 to 90');
  });

  it('accepts the edges of the coordinate ranges', () => {
    expect(parse('grid', 'plumber -90 180')).toEqual({
      kind: 'ready',
      fields: { keyword: 'plumber', lat: -90, lng: 180 },
    });
  });

  it('refuses a negative, zero or non-numeric radius', () => {
    expect(errorsOf('grid', 'plumber 30 -97 radius=-2')).toEqual({
      radius: 'Radius must be a number above 0',
    });
    expect(errorsOf('grid', 'plumber 30 -97 radius=0').radius).toBe('Radius must be a number above 0');
    expect(errorsOf('grid', 'plumber 30 -97 radius=far').radius).toBe('Radius must be a number above 0');
  });

  it('refuses a depth that is not a whole number from 1 to 10', () => {
    expect(errorsOf('map', 'heaters depth=2.5').depth).toBe('Depth must be a whole number from 1 to 10');
    expect(errorsOf('map', 'heaters depth=11').depth).toBe('Depth must be a whole number from 1 to 10');
  });

  it('refuses a bad email address', () => {
    const errors = errorsOf('email', 'to=not-an-address subject=Hi html="<p>x</p>"');
    expect(errors).toEqual({ to: 'To must be an email address, like name@example.com' });
  });

  it('refuses an unknown field and names the allowed ones', () => {
    expect(errorsOf('blog', 'plumbers colour=blue')).toEqual({
      colour: 'Unknown field "colour": `blog` takes keyword, category_id, tone',
    });
    expect(errorsOf('backlinks refresh', 'x=1').x).toBe(
      'Unknown field "x": `backlinks refresh` takes no fields',
    );
  });

  it('refuses a field given twice and stray words', () => {
    expect(errorsOf('audit', 'url=https://a.example URL=https://b.example')).toEqual({
      url: 'url is given twice',
    });
    expect(errorsOf('audit', 'https://a.example url=https://b.example')).toEqual({
      arguments: 'Unexpected "https://a.example": url already given as name=value',
    });
    expect(errorsOf('audit', 'https://a.example https://b.example').url).toMatch(
      /cannot contain spaces \("https:\/\/a.example https:\/\/b.example"\)/,
    );
    expect(errorsOf('grid', '"plumber" 30.1 -97.7 40').arguments).toMatch(/Too many words: "40"\. Quote/);
    // Decimal commas: the comma splits `30,2672` into two words, so the advice is about the comma.
    expect(errorsOf('grid', '"plumber" 30,2672 -97,7431').arguments).toMatch(
      /Too many words: "-97" "7431"\. Write decimals with a point, like 30\.2672/,
    );
    // An id is one word: a second is a second request, not a value with spaces.
    expect(errorsOf('deploy', 'blog_1 blog_2').arguments).toBe(
      'Too many words: "blog_2". `deploy` takes <post_id>: one request each',
    );
    for (const local of ['http://localhost:8080/', 'https://127.0.0.1/x', 'http://intranet/page'])
      expect(errorsOf('audit', local).url).toMatch(/must be a public web address.*cannot reach localhost/);
    expect(errorsOf('geo', 'drains').arguments).toMatch(/give fields as name=value/);
    expect(errorsOf('backlinks refresh', 'now').arguments).toMatch(/takes no arguments/);
  });

  it('carries the usage line with every refusal', () => {
    const result = parse('audit', 'acme.example');
    expect(result).toMatchObject({ kind: 'invalid', usage: '/gateway audit <url>' });
  });

  it('refuses a URL with spaces or over 2,000 characters, saying why', () => {
    expect(errorsOf('audit', 'https://acme.example/my page').url).toBe(
      'Page URL cannot contain spaces ("https://acme.example/my page"): write a space as %20',
    );
    expect(errorsOf('index', 'url="https://acme.example/my page"').url).toMatch(/cannot contain spaces/);
    expect(errorsOf('audit', `https://acme.example/${'a'.repeat(2_000)}`).url).toBe(
      'Page URL is too long: at most 2,000 characters',
    );
  });

  it('reads coordinates pasted from a map', () => {
    for (const typed of [
      '30.2672, -97.7431',
      '30.2672,-97.7431',
      '(30.2672, -97.7431)',
      '"30.2672, -97.7431"',
    ]) {
      expect(parse('grid', `"plumber near me" ${typed}`), typed).toEqual({
        kind: 'ready',
        fields: { keyword: 'plumber near me', lat: 30.2672, lng: -97.7431 },
      });
    }
    expect(parse('grid', 'plumber lat=30.2672, lng=-97.7431')).toMatchObject({ kind: 'ready' });
  });
});

describe('parsing action arguments: what runs, what opens a form', () => {
  it('runs an action with no required fields straight away', () => {
    expect(parse('ideas', '')).toEqual({ kind: 'ready', fields: {} });
  });

  it('opens the form for a missing required field, whatever the action (audit alone as press)', () => {
    // A deploy without a post too: its form offers the newest posts.
    for (const command of ['audit', 'grid', 'map', 'index', 'press', 'deploy']) {
      expect(parse(command, ''), command).toEqual({ kind: 'needs-modal', prefill: {}, reason: 'missing' });
    }
    expect(parse('grid', '"plumber near me"')).toEqual({
      kind: 'needs-modal',
      prefill: { keyword: 'plumber near me' },
      reason: 'missing',
    });
  });

  it('opens the form when a form action misses a required field, prefilled with what was given', () => {
    expect(parse('blog', '')).toEqual({ kind: 'needs-modal', prefill: {}, reason: 'missing' });
    expect(parse('geo', 'city=Austin')).toEqual({
      kind: 'needs-modal',
      prefill: { city: 'Austin' },
      reason: 'missing',
    });
    expect(parse('score-call', 'call_0042')).toEqual({
      kind: 'needs-modal',
      prefill: { call_id: 'call_0042' },
      reason: 'missing',
    });
    expect(parse('email', 'to=a@b.example')).toMatchObject({ kind: 'needs-modal', reason: 'missing' });
  });

  it('refuses, rather than opens a form, when a given value is wrong', () => {
    expect(parse('email', 'to=nope').kind).toBe('invalid');
  });

  it('opens the form when asked with --form or form', () => {
    expect(parse('blog', '"best plumber" --form')).toEqual({
      kind: 'needs-modal',
      prefill: { keyword: 'best plumber' },
      reason: 'asked',
    });
    expect(parse('blog', 'form')).toEqual({ kind: 'needs-modal', prefill: {}, reason: 'asked' });
    expect(parse('blog', 'form tone=warm')).toEqual({
      kind: 'needs-modal',
      prefill: { tone: 'warm' },
      reason: 'asked',
    });
    // Inside free text "form" is just a word.
    expect(parse('llm', 'Acme what form of payment')).toEqual({
      kind: 'ready',
      fields: { brand_name: 'Acme', prompt: 'what form of payment' },
    });
    // A command without a form takes "form" as an ordinary value.
    expect(errorsOf('audit', 'form').url).toMatch(/web address/);
  });

  it('offers the press release form for body points when only the headline is given', () => {
    expect(parse('press', '"We moved"')).toEqual({
      kind: 'needs-modal',
      prefill: { headline: 'We moved' },
      reason: 'asked',
    });
  });

  it('joins the remaining words into the last positional field', () => {
    expect(parse('blog', 'best plumber austin tone=expert')).toEqual({
      kind: 'ready',
      fields: { keyword: 'best plumber austin', tone: 'expert' },
    });
    expect(parse('llm', 'Acme is Acme the best?')).toEqual({
      kind: 'ready',
      fields: { brand_name: 'Acme', prompt: 'is Acme the best?' },
    });
  });

  it('lets name=value fill a positional field, the words filling the rest in order', () => {
    expect(parse('grid', 'lat=30.1 plumber -97.5')).toEqual({
      kind: 'ready',
      fields: { keyword: 'plumber', lat: 30.1, lng: -97.5 },
    });
  });

  it('treats an empty optional value as absent and matches field names case-insensitively', () => {
    expect(parse('optimize', 'https://a.example/x keyword=')).toEqual({
      kind: 'ready',
      fields: { url: 'https://a.example/x' },
    });
    expect(parse('outreach', 'prospecturl=https://p.example')).toEqual({
      kind: 'ready',
      fields: { prospectUrl: 'https://p.example' },
    });
  });
});

describe('validating raw fields', () => {
  it('accepts job data that was validated before (numbers and lists) and gives the same fields back', () => {
    const grid = entry('grid');
    const fields = { keyword: 'plumber', lat: 30.2, lng: -97.7, radius: 3 };
    expect(validateActionFields(grid, fields)).toEqual({ ok: true, fields });
    const press = entry('press');
    const release = { headline: 'New office', body_points: ['One', 'Two'] };
    expect(validateActionFields(press, release)).toEqual({ ok: true, fields: release });
  });

  it('splits list text on lines, strips bullets, and refuses values of the wrong shape', () => {
    expect(validateActionFields(entry('press'), { headline: 'X', body_points: '- One\n• Two\n\n' })).toEqual({
      ok: true,
      fields: { headline: 'X', body_points: ['One', 'Two'] },
    });
    expect(validateActionFields(entry('audit'), { url: { href: 'https://a.example' } })).toEqual({
      ok: false,
      errors: { url: 'Page URL must be text' },
    });
  });

  it('reports every bad field at once, unknown ones included', () => {
    const result = validateActionFields(entry('email'), { to: 'x', subject: '', html: '<p>ok</p>', cc: 'y' });
    expect(result).toEqual({
      ok: false,
      errors: {
        to: 'To must be an email address, like name@example.com',
        subject: 'Subject is required',
        cc: 'Unknown field "cc": `email` takes to, subject, html',
      },
    });
  });

  it('trims values and refuses one that is too long', () => {
    expect(validateActionFields(entry('blog'), { keyword: '  plumbers  ' })).toEqual({
      ok: true,
      fields: { keyword: 'plumbers' },
    });
    const long = validateActionFields(entry('blog'), { keyword: 'k'.repeat(201) });
    expect(long).toEqual({ ok: false, errors: { keyword: 'Keyword is too long (at most 200 characters)' } });
  });
});
