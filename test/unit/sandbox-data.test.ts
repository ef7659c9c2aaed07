import { describe, expect, it } from 'vitest';
import { SAMPLE_CLIENTS } from '../../src/sandbox/clients.js';
import { SANDBOX_RESOURCES } from '../../src/sandbox/discovery.js';
import { sampleRows } from '../../src/sandbox/rows/index.js';
import { selectRows } from '../../src/sandbox/select.js';

const settings = { seed: 42, anchorMs: Date.parse('2025-06-30T12:00:00Z'), keywordRows: 2_003 };
const [acme, bright] = SAMPLE_CLIENTS;

describe('sample data', () => {
  it('is the same for the same seed and differs for another seed', () => {
    expect(sampleRows(settings, acme!, 'reviews')).toEqual(sampleRows(settings, acme!, 'reviews'));
    expect(sampleRows({ ...settings, seed: 7 }, acme!, 'reviews')).not.toEqual(
      sampleRows(settings, acme!, 'reviews'),
    );
  });

  it('gives every row of every resource a unique id and a created_at', () => {
    for (const client of SAMPLE_CLIENTS) {
      for (const resource of SANDBOX_RESOURCES.filter((r) => r !== 'clients')) {
        const rows = sampleRows(settings, client, resource);
        expect(rows.length, `${client.id} ${resource}`).toBeGreaterThan(0);
        expect(new Set(rows.map((r) => r.id)).size, `${client.id} ${resource}`).toBe(rows.length);
        expect(rows.every((r) => typeof r.created_at === 'string')).toBe(true);
      }
    }
  });

  it('makes exactly largeKeywordRows keyword rows, each keyword once per tracked date', () => {
    const rows = sampleRows(settings, acme!, 'keywords');
    expect(rows).toHaveLength(2_003);
    const pairs = new Set(rows.map((r) => `${r.keyword}|${r.tracked_at}`));
    expect(pairs.size).toBe(rows.length);
    expect(new Set(rows.map((r) => r.tracked_at)).size).toBe(5);
    expect(rows.every((r) => Number(r.position) >= 1 && Number(r.position) <= 100)).toBe(true);
  });

  it('has the large client large and the small ones small', () => {
    expect(sampleRows(settings, acme!, 'reviews').length).toBeGreaterThanOrEqual(3_000);
    expect(sampleRows(settings, acme!, 'backlinks').length).toBeGreaterThanOrEqual(2_000);
    expect(sampleRows(settings, bright!, 'reviews').length).toBeLessThan(100);
    const sentiments = new Set(sampleRows(settings, acme!, 'reviews').map((r) => r.sentiment));
    expect([...sentiments].sort()).toEqual(['negative', 'neutral', 'positive']);
  });
});

describe('selectRows', () => {
  const rows = [
    { id: 'a', n: 2, status: 'x' },
    { id: 'b', n: 1, status: 'y' },
    { id: 'c', status: 'x' },
    { id: 'd', n: 2, status: 'x' },
    { id: 'e', n: 10, status: 'x' },
  ];

  it('orders numbers numerically, keeps ties in natural order both ways and puts rows lacking the field last', () => {
    expect(selectRows(rows, { order: 'n', direction: 'desc' }).map((r) => r.id)).toEqual([
      'e',
      'a',
      'd',
      'b',
      'c',
    ]);
    expect(selectRows(rows, { order: 'n', direction: 'asc' }).map((r) => r.id)).toEqual([
      'b',
      'a',
      'd',
      'e',
      'c',
    ]);
  });

  it('filters by exact text match before ordering', () => {
    const picked = selectRows(rows, {
      order: 'n',
      direction: 'desc',
      filter: { field: 'status', value: 'x' },
    });
    expect(picked.map((r) => r.id)).toEqual(['e', 'a', 'd', 'c']);
    expect(selectRows(rows, { direction: 'desc', filter: { field: 'n', value: '10' } })).toHaveLength(1);
  });
});
