import { describe, expect, it } from 'vitest';
import {
  buildActionFailed,
  buildActionRejected,
  buildActionResult,
  buildOutcomeUnknown,
} from '../../src/views/action-result.js';

const all = (m: { text: string; blocks: unknown[] }) => `${m.text}\n${JSON.stringify(m.blocks)}`;

describe('buildActionResult', () => {
  it('shows a drafted blog by title and id', () => {
    const m = buildActionResult(
      { action: 'generate_blog', label: 'Blog article' },
      { id: 'blog_1', post_title: 'Best plumber in Austin' },
    );
    expect(all(m)).toContain('Drafted: *Best plumber in Austin*');
    expect(all(m)).toContain('`blog_1`');
  });

  it('shows an audit by score, issues and URL', () => {
    const m = buildActionResult(
      { action: 'seo_audit', label: 'SEO audit' },
      { id: 'audit_1', score: 72, issues_found: 9, url: 'https://acme.example/' },
    );
    expect(all(m)).toContain('Score: *72*/100');
    expect(all(m)).toContain('Issues found: *9*');
    expect(all(m)).toContain('<https://acme.example/|https://acme.example/>');
  });

  it('renders any other shape generically, named result fields first, and escaped', () => {
    const m = buildActionResult(
      { action: 'generate_faq', label: 'FAQ', resultFields: ['question'] },
      { id: 'faq_1', answer: 'Call <!channel> & ask', question: 'Why?', nested: { a: 1 } },
    );
    const text = all(m);
    expect(text.indexOf('Question')).toBeLessThan(text.indexOf('Answer'));
    expect(text).toContain('Call &lt;!channel&gt; &amp; ask');
    expect(text).not.toContain('<!channel>');
    expect(text).toContain('{\\"a\\":1}');
  });

  it('keeps within the ten-field limit for wide records', () => {
    const data = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f${i}`, i]));
    const m = buildActionResult({ action: 'x', label: 'X' }, data);
    const section = (m.blocks as { fields?: unknown[] }[]).find((b) => b.fields);
    expect(section?.fields?.length).toBeLessThanOrEqual(10);
  });

  it('adds the reconciliation note when the record was found rather than created', () => {
    const m = buildActionResult({ action: 'x', label: 'X' }, { id: 'r1' }, { note: 'Found it' });
    expect(all(m)).toContain('Found it');
  });
});

describe('failure replies', () => {
  it('a status:error reply carries the gateway message, its status_code and a Retry button', () => {
    const m = buildActionFailed({
      label: 'Blog article',
      statusCode: 502,
      message: 'AI <down>',
      jobKey: 'k1',
    });
    expect(all(m)).toContain('status_code 502');
    expect(all(m)).toContain('AI &lt;down&gt;');
    expect(all(m)).toContain('"action_id":"job_retry","value":"k1"');
  });

  it('a 403 reply carries the access advice; a 400 carries the message alone', () => {
    expect(all(buildActionRejected({ label: 'X', status: 403, message: 'no' }))).toContain(
      'regenerate the key',
    );
    const bad = buildActionRejected({ label: 'X', status: 400, message: 'Missing required field "url"' });
    expect(all(bad)).toContain('Missing required field');
    expect(bad.blocks).toHaveLength(1);
  });

  it('an unknown outcome asks a person, with a Retry anyway button', () => {
    const m = buildOutcomeUnknown({ label: 'URL indexing', jobKey: 'k2', reason: 'no place to look' });
    expect(all(m)).toContain('"action_id":"job_retry_anyway","value":"k2"');
    expect(all(m)).toContain('outcome of URL indexing is unknown');
  });
});
