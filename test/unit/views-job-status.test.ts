import { describe, expect, it } from 'vitest';
import { buildJobStatus, subjectOf } from '../../src/views/job-status.js';
import { MAX_TEXT } from '../../src/views/limits.js';

describe('buildJobStatus', () => {
  const base = { label: 'SEO audit', clientLabel: 'Acme', requestedBy: 'U1' } as const;

  it('says what runs, for whom, who asked and how many jobs are ahead', () => {
    const m = buildJobStatus({ ...base, state: 'queued', subject: 'https://acme.example/', ahead: 3 });
    expect(m.text).toBe('SEO audit of https://acme.example/ for Acme, requested by <@U1> — queued, 3 ahead');
    expect(JSON.stringify(m.blocks)).toContain(':hourglass_flowing_sand:');
  });

  it('drops "ahead" when nothing is ahead and shows each later state', () => {
    expect(buildJobStatus({ ...base, state: 'queued', ahead: 0 }).text).toMatch(/— queued$/);
    expect(buildJobStatus({ ...base, state: 'running' }).text).toMatch(/— running$/);
    expect(buildJobStatus({ ...base, state: 'needs-attention' }).text).toMatch(/— needs attention$/);
    const failed = buildJobStatus({ ...base, state: 'failed', summary: 'status_code 502' });
    expect(JSON.stringify(failed.blocks)).toContain('status_code 502');
  });

  it('escapes gateway and user text so it cannot ping or forge a link', () => {
    const m = buildJobStatus({
      ...base,
      clientLabel: 'Evil <!channel> & Co',
      subject: '<https://evil.example|click>',
      requestedBy: 'not-an-id <!here>',
      state: 'done',
    });
    expect(m.text).not.toMatch(/<!channel>|<!here>|<https/);
    expect(m.text).toContain('Evil &lt;!channel&gt; &amp; Co');
  });

  it('stays within Slack limits for absurdly long input', () => {
    const m = buildJobStatus({ ...base, subject: 'x'.repeat(10_000), state: 'running' });
    expect(m.text.length).toBeLessThanOrEqual(MAX_TEXT);
  });

  it('names an action by its main field', () => {
    expect(subjectOf({ keyword: ' plumber ', tone: 'fun' })).toBe('plumber');
    expect(subjectOf({ depth: 3 })).toBeUndefined();
  });
});
