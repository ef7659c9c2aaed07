import { describe, expect, it } from 'vitest';
import { BadRequestError, GatewayErrorCode } from '../../src/gateway/errors.js';
import {
  buildReadQuery,
  MISSING_CLIENT_ID_MESSAGE,
  validateReadParams,
} from '../../src/gateway/read-params.js';
import {
  badDirectionMessage,
  badFilterMessage,
  badLimitMessage,
  badOffsetMessage,
  badOrderMessage,
} from '../../src/gateway/spec.js';

function rejection(run: () => void): BadRequestError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(BadRequestError);
    return error as BadRequestError;
  }
  throw new Error('expected a BadRequestError');
}

describe('read parameters are checked before a call', () => {
  it('accepts a combined filter and order', () => {
    expect(() =>
      validateReadParams('seo_tasks', {
        clientId: 'acme-plumbing',
        filter: { field: 'status', value: 'pending' },
        order: 'created_at',
        direction: 'desc',
        limit: 1000,
        offset: 0,
      }),
    ).not.toThrow();
  });

  it('rejects an order outside the list with the gateway wording, naming the allowed values', () => {
    const error = rejection(() => validateReadParams('keywords', { clientId: 'a', order: 'position' }));
    expect(error.message).toBe(badOrderMessage('position'));
    expect(error.message).toContain('created_at, updated_at, id');
    expect(error.code).toBe(GatewayErrorCode.BadRequest);
    expect(error.status).toBe(400);
  });

  it('rejects a filter field, a direction, a limit and an offset out of range', () => {
    const base = { clientId: 'a' };
    expect(
      rejection(() => validateReadParams('keywords', { ...base, filter: { field: 'x', value: '1' } }))
        .message,
    ).toBe(badFilterMessage('x'));
    expect(rejection(() => validateReadParams('keywords', { ...base, direction: 'up' })).message).toBe(
      badDirectionMessage('up'),
    );
    expect(rejection(() => validateReadParams('keywords', { ...base, limit: 1001 })).message).toBe(
      badLimitMessage('1001'),
    );
    expect(rejection(() => validateReadParams('keywords', { ...base, limit: 0 })).message).toBe(
      badLimitMessage('0'),
    );
    expect(rejection(() => validateReadParams('keywords', { ...base, limit: 2.5 })).message).toBe(
      badLimitMessage('2.5'),
    );
    expect(rejection(() => validateReadParams('keywords', { ...base, offset: -1 })).message).toBe(
      badOffsetMessage('-1'),
    );
  });

  it('needs a client id for every resource but clients', () => {
    expect(rejection(() => validateReadParams('keywords', {})).message).toBe(MISSING_CLIENT_ID_MESSAGE);
    expect(() => validateReadParams('clients', {})).not.toThrow();
  });

  it('builds the query with the spec names and leaves client_id off for clients', () => {
    expect(
      buildReadQuery('reviews', {
        clientId: 'bright-dental',
        limit: 5,
        offset: 10,
        order: 'created_at',
        direction: 'asc',
        filter: { field: 'sentiment', value: 'negative & rude' },
      }),
    ).toBe(
      'resource=reviews&client_id=bright-dental&limit=5&offset=10&order=created_at&direction=asc&filter_field=sentiment&filter_value=negative+%26+rude',
    );
    expect(buildReadQuery('clients', { clientId: 'ignored' })).toBe('resource=clients');
  });
});
