import { describe, expect, it } from 'vitest';
import { backoffMs } from '../../src/jobs/rate-limit.js';
import { actionFingerprint, fingerprint, pickKeyFields } from '../../src/store/ledger.js';

describe('fingerprint', () => {
  it('is the same whatever the field order, case or surrounding spaces', () => {
    const a = fingerprint('generate_blog', 'acme', { keyword: 'Best Plumber ', tone: 'fun' });
    const b = fingerprint('generate_blog', 'acme', { tone: 'fun', keyword: 'best plumber' });
    expect(a).toBe(b);
  });

  it('differs by action, client and value', () => {
    const a = fingerprint('generate_blog', 'acme', { keyword: 'x' });
    expect(fingerprint('generate_blog', 'bright', { keyword: 'x' })).not.toBe(a);
    expect(fingerprint('generate_topical_map', 'acme', { keyword: 'x' })).not.toBe(a);
    expect(fingerprint('generate_blog', 'acme', { keyword: 'y' })).not.toBe(a);
  });

  it('uses the key fields of the action when it names them, else every field', () => {
    const entry = { action: 'generate_blog', sameFields: ['keyword'] };
    expect(actionFingerprint(entry, 'acme', { keyword: 'x', tone: 'a' })).toBe(
      actionFingerprint(entry, 'acme', { keyword: 'x', tone: 'b' }),
    );
    expect(pickKeyFields([], { a: 1 })).toEqual({ a: 1 });
    expect(pickKeyFields(['missing'], { a: 1 })).toEqual({ a: 1 });
  });
});

describe('backoffMs', () => {
  it('doubles with consecutive faults up to a cap', () => {
    expect([1, 2, 3].map((n) => backoffMs(100, n))).toEqual([100, 200, 400]);
    expect(backoffMs(1_000, 30, 5_000)).toBe(5_000);
  });
});
