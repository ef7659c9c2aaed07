import { describe, expect, it } from 'vitest';
import { toJobState } from '../../src/jobs/job-state.js';

describe('the state a job is listed in', () => {
  it('lists a job that failed after its POST left as needing attention, and one that failed before as failed', () => {
    expect(toJobState('failed', undefined, 'posting')).toBe('needs-attention');
    expect(toJobState('failed', undefined, 'queued')).toBe('failed');
  });

  it('maps BullMQ states onto the channel’s words', () => {
    expect(toJobState('completed', { outcome: 'done' })).toBe('done');
    expect(toJobState('completed', { outcome: 'needs-attention' })).toBe('needs-attention');
    expect(toJobState('prioritized', undefined)).toBe('queued');
    expect(toJobState('active', undefined)).toBe('running');
    expect(toJobState('unknown', undefined)).toBeUndefined();
  });
});
