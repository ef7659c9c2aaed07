import { describe, expect, it } from 'vitest';
import {
  buildActionFailed,
  buildActionRejected,
  buildOutcomeUnknown,
} from '../../src/views/action-result.js';

const all = (m: { text: string; blocks: unknown[] }) => `${m.text}\n${JSON.stringify(m.blocks)}`;

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
