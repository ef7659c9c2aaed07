import { describe, expect, it } from 'vitest';
import { aboutDuration, buildJobStatus, rateWords } from '../../src/views/job-status.js';
import { MAX_TEXT } from '../../src/views/limits.js';
import { actionTitle, subjectOf } from '../../src/views/template.js';

describe('buildJobStatus', () => {
  const base = { title: 'SEO audit', clientLabel: 'Acme', requestedBy: 'U1' } as const;

  it('says what runs, for whom, who asked and how many jobs are ahead', () => {
    const m = buildJobStatus({ ...base, state: 'queued', wait: { ahead: 3 } });
    expect(m.text).toBe('SEO audit for Acme, requested by <@U1> — queued: 3 ahead');
    expect(JSON.stringify(m.blocks)).toContain(':hourglass_flowing_sand:');
  });

  it('says why a queued job waits and about how long, with a Cancel button keyed by the job', () => {
    const m = buildJobStatus({
      ...base,
      state: 'queued',
      wait: { ahead: 12, ms: 40_000, rate: { max: 10, windowMs: 60_000 } },
      cancelKey: 'cmd:T1',
    });
    expect(m.text).toMatch(/— queued: 10 actions a minute, 12 ahead, about 40 s$/);
    expect(JSON.stringify(m.blocks)).toContain('"action_id":"job_cancel","value":"cmd:T1"');
    const slowed = buildJobStatus({
      ...base,
      state: 'queued',
      wait: { ahead: 0, ms: 8_000, slowed: 'faults' },
    });
    expect(slowed.text).toMatch(/queued: the gateway keeps failing, so the queue is slowed, about 8 s$/);
    const limited = buildJobStatus({
      ...base,
      state: 'queued',
      wait: { ahead: 2, ms: 5_000, slowed: 'rate-limited' },
    });
    expect(limited.text).toMatch(/queued: the gateway asked the bot to slow down, 2 ahead, about 5 s$/);
    // No Cancel once it runs.
    expect(
      JSON.stringify(buildJobStatus({ ...base, state: 'running', cancelKey: 'k' }).blocks),
    ).not.toContain('job_cancel');
  });

  it('drops "ahead" when nothing is ahead and shows each later state in words', () => {
    expect(buildJobStatus({ ...base, state: 'queued', wait: { ahead: 0 } }).text).toMatch(/— queued$/);
    expect(buildJobStatus({ ...base, state: 'running' }).text).toMatch(/— running$/);
    expect(buildJobStatus({ ...base, state: 'needs-attention' }).text).toMatch(/— needs attention$/);
    expect(buildJobStatus({ ...base, state: 'done', result: 'score 72/100' }).text).toMatch(
      /— done: score 72\/100$/,
    );
    const failed = buildJobStatus({ ...base, state: 'failed', summary: 'status_code 502' });
    expect(JSON.stringify(failed.blocks)).toContain('status_code 502');
  });

  it('escapes gateway and user text so it cannot ping or forge a link', () => {
    const m = buildJobStatus({
      ...base,
      title: actionTitle({ label: 'Blog article' }, { keyword: '<https://evil.example|click>' }),
      clientLabel: 'Evil <!channel> & Co',
      requestedBy: 'not-an-id <!here>',
      state: 'done',
    });
    expect(m.text).not.toMatch(/<!channel>|<!here>|<https/);
    expect(m.text).toContain('Evil &lt;!channel&gt; &amp; Co');
  });

  it('stays within Slack limits for absurdly long input', () => {
    const m = buildJobStatus({ ...base, title: 'x'.repeat(10_000), state: 'running' });
    expect(m.text.length).toBeLessThanOrEqual(MAX_TEXT);
  });

  it('names an action by its main field', () => {
    expect(subjectOf({ keyword: ' plumber ', tone: 'fun' })).toBe('plumber');
    expect(subjectOf({ depth: 3 })).toBeUndefined();
  });

  it('words durations and rates', () => {
    expect(aboutDuration(39_100)).toBe('about 40 s');
    expect(aboutDuration(240_000)).toBe('about 4 min');
    expect(rateWords({ max: 10, windowMs: 60_000 })).toBe('10 actions a minute');
    expect(rateWords({ max: 1, windowMs: 10_000 })).toBe('1 action every 10 s');
  });
});
