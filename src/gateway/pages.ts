import { ScanLimitError } from './errors.js';
import { LIMIT_MAX } from './spec.js';
import type { Page, ReadParams, Row } from './types.js';

/**
 * Pagination (docs/gateway-api.md §4.2 rule 3, §4.4 rule 3): follow `pagination.has_more`, moving `offset` by
 * the page size, one page in memory at a time, so a 100,000-row resource costs what one page costs.
 */

export type PagedParams = ReadParams & {
  /** Stop after this many rows (the last page is trimmed). */
  maxRows?: number;
  /**
   * The most rows a walk may read before it is taken for a runaway (default MAX_SCAN_ROWS). A walk that folds
   * rows as they pass and keeps none (the digests) may set it higher: its memory does not grow with it.
   */
  scanLimit?: number;
};

export type PageReader = (resource: string, params: ReadParams) => Promise<Page>;

/** No walk reads more rows than this, whatever the gateway says its total is (the largest client has 100,000). */
const MAX_SCAN_ROWS = 250_000;

/**
 * The most rows a walk may read: what the first page's total says there are from `offset` on, plus room for
 * rows that arrive during the walk (a page, or a tenth), and never more than MAX_SCAN_ROWS.
 */
function scanCap(firstTotal: number, offset: number, pageSize: number, limit = MAX_SCAN_ROWS): number {
  const expected = Math.max(0, firstTotal - offset);
  return Math.min(limit, expected + Math.max(pageSize, Math.ceil(expected / 10)));
}

export async function* iteratePages(
  read: PageReader,
  resource: string,
  params: PagedParams,
): AsyncGenerator<Page> {
  const { maxRows, scanLimit, ...base } = params;
  // Iteration wants few round trips: the largest page unless the caller chose a size.
  const pageSize = base.limit ?? LIMIT_MAX;
  const cap = maxRows ?? Number.POSITIVE_INFINITY;
  const start = base.offset ?? 0;
  let offset = start;
  let seen = 0;
  let received = 0;
  let guard: number | undefined;
  while (seen < cap) {
    const limit = Math.min(pageSize, cap - seen);
    const page = await read(resource, { ...base, limit, offset });
    // A gateway whose pages never end (has_more for ever, rows past its own total) is stopped here, before its
    // rows fill the heap: the caller gets a typed error, not a partial scan it would take for the whole.
    guard ??= scanCap(page.pagination.total, start, pageSize, scanLimit);
    received += page.data.length;
    if (received > guard) {
      throw new ScanLimitError(
        `The gateway sent more than ${guard} rows of ${resource} (its first page said ${page.pagination.total}); the read was stopped`,
        resource,
        guard,
      );
    }
    const room = cap - seen;
    const trimmed = page.data.length > room ? { ...page, data: page.data.slice(0, room) } : page;
    seen += trimmed.data.length;
    yield trimmed;
    // The gateway's `pagination.limit` is the size it actually used; a gateway that caps lower than we asked
    // would otherwise make us skip rows. An empty page ends the walk even if has_more says otherwise, so a
    // misbehaving gateway cannot loop us forever.
    const used = page.pagination.limit > 0 ? Math.min(page.pagination.limit, limit) : limit;
    if (!page.pagination.has_more || page.data.length === 0) return;
    offset += used;
  }
}

/**
 * Rows of successive pages. Hand-written rather than an async generator: a generator pays its queueing
 * machinery on every row, which measured about twice the cost (tens of ms per 100,000 rows); here a row of
 * the current page is one resolved promise, and only a page boundary awaits.
 */
export function iterateRows(pages: AsyncIterable<Page>): AsyncIterable<Row> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<Row> {
      const source = pages[Symbol.asyncIterator]();
      let rows: Row[] = [];
      let index = 0;
      const next = (): Promise<IteratorResult<Row>> => {
        if (index < rows.length) return Promise.resolve({ value: rows[index++]!, done: false });
        return source.next().then((result) => {
          if (result.done) return { value: undefined, done: true };
          rows = result.value.data;
          index = 0;
          return next();
        });
      };
      return {
        next,
        // `break` in a for-await lands here: stop the page walk so no further page is requested.
        return: async () => {
          rows = [];
          await source.return?.();
          return { value: undefined, done: true };
        },
      };
    },
  };
}

export interface Collected {
  rows: Row[];
  /** `pagination.total` of the last page read: rows matching, whatever the cap. */
  total: number;
  /** True when rows exist beyond the cap. */
  truncated: boolean;
}

export async function collectRows(
  read: PageReader,
  resource: string,
  params: ReadParams,
  cap: number,
): Promise<Collected> {
  const rows: Row[] = [];
  let total = 0;
  let hasMore = false;
  for await (const page of iteratePages(read, resource, { ...params, maxRows: cap })) {
    total = page.pagination.total;
    hasMore = page.pagination.has_more;
    for (const row of page.data) rows.push(row);
  }
  const start = params.offset ?? 0;
  return { rows, total, truncated: rows.length >= cap && (hasMore || total > start + rows.length) };
}
