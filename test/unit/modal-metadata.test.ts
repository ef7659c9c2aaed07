import { describe, expect, it } from 'vitest';
import { parseModalMetadata } from '../../src/slack/open-action-modal.js';

describe('action form metadata', () => {
  it('reads the spelled-out keys', () => {
    const text = JSON.stringify({ channel: 'C1', action: 'generate_blog', clientId: 'harbor-law' });
    expect(parseModalMetadata(text)).toEqual({
      channel: 'C1',
      action: 'generate_blog',
      clientId: 'harbor-law',
    });
  });

  it('does not read the short keys of unreleased versions ({c, a, k}): such a form is out of date', () => {
    expect(parseModalMetadata('{"c":"C1","a":"generate_blog","k":"harbor-law"}')).toBeUndefined();
  });

  it('refuses what is not one of its forms', () => {
    expect(parseModalMetadata('not json')).toBeUndefined();
    expect(parseModalMetadata('{"channel":"C1"}')).toBeUndefined();
  });
});
