/**
 * Digest filters. Reviews: `sentiment=negative`, `rating<=3`. Rankings: `min_change=3`,
 * `top=10` (only keywords that are or were in the top N), `keyword~plumb`. Pure.
 */

export interface ReviewFilters {
  sentiment?: string;
  /** Only reviews rated at most this. */
  maxRating?: number;
}

export interface RankingFilters {
  minChange?: number;
  top?: number;
  /** Lower-cased substring of the keyword. */
  keyword?: string;
}

export type DigestKind = 'reviews' | 'rankings';
export type DigestFilters = ReviewFilters & RankingFilters;

/** A filter as typed: `name`, the operator and the value (`rating`, `<=`, `3`). */
export interface TypedFilter {
  name: string;
  op: '=' | '<=' | '<' | '~';
  value: string;
}

export class FilterError extends Error {
  override readonly name = 'FilterError';
  constructor(
    message: string,
    readonly example: string,
  ) {
    super(message);
  }
}

export const FILTER_EXAMPLES: Record<DigestKind, string> = {
  reviews: '/gateway digest reviews daily 09:00 sentiment=negative rating<=3',
  rankings: '/gateway digest rankings weekly mon 08:30 min_change=3 top=10 keyword~plumb',
};

const SENTIMENTS = ['positive', 'neutral', 'negative'];

/** Each kind's filters as a person types them, for `help digest`. */
export const FILTER_FORMS: Record<DigestKind, readonly string[]> = {
  reviews: [`sentiment=${SENTIMENTS.join('|')}`, 'rating<=N', 'rating<N'],
  rankings: ['min_change=N', 'top=N', 'keyword~text'],
};

function wholeNumber(filter: TypedFilter, min: number, max: number, kind: DigestKind): number {
  const n = Number(filter.value);
  if (!/^\d+$/.test(filter.value) || n < min || n > max) {
    throw new FilterError(
      `\`${filter.name}\` takes a whole number from ${min} to ${max}, not \`${filter.value}\`.`,
      FILTER_EXAMPLES[kind],
    );
  }
  return n;
}

function known(kind: DigestKind): string {
  return kind === 'reviews' ? '`sentiment=…`, `rating<=N`' : '`min_change=N`, `top=N`, `keyword~text`';
}

/** Typed filters → the filters of a kind, or a FilterError that says which one is wrong and shows an example. */
export function parseFilters(kind: DigestKind, typed: readonly TypedFilter[]): DigestFilters {
  const out: DigestFilters = {};
  for (const filter of typed) {
    const name = filter.name.toLowerCase();
    const wrong = () =>
      new FilterError(
        `\`${filter.name}${filter.op}${filter.value}\` is not a ${kind} filter. ${kind} digests take ${known(kind)}.`,
        FILTER_EXAMPLES[kind],
      );
    if (kind === 'reviews') {
      if (name === 'sentiment' && filter.op === '=') {
        const value = filter.value.toLowerCase();
        if (!SENTIMENTS.includes(value)) {
          throw new FilterError(
            `\`sentiment\` is one of ${SENTIMENTS.join(', ')}, not \`${filter.value}\`.`,
            FILTER_EXAMPLES.reviews,
          );
        }
        out.sentiment = value;
      } else if (name === 'rating' && filter.op !== '~') {
        const n = wholeNumber(filter, filter.op === '<' ? 2 : 1, 5, kind);
        out.maxRating = filter.op === '<' ? n - 1 : n;
      } else throw wrong();
    } else if (name === 'min_change' && filter.op === '=') out.minChange = wholeNumber(filter, 1, 100, kind);
    else if (name === 'top' && filter.op === '=') out.top = wholeNumber(filter, 1, 100, kind);
    else if (name === 'keyword' && (filter.op === '~' || filter.op === '=')) {
      if (!filter.value.trim()) throw wrong();
      out.keyword = filter.value.trim().toLowerCase();
    } else throw wrong();
  }
  return out;
}

/** Filters as a person would type them again (for `status` and the digest's footer). */
export function describeFilters(filters: DigestFilters): string {
  const parts: string[] = [];
  if (filters.sentiment) parts.push(`sentiment=${filters.sentiment}`);
  if (filters.maxRating !== undefined) parts.push(`rating<=${filters.maxRating}`);
  if (filters.minChange !== undefined) parts.push(`min_change=${filters.minChange}`);
  if (filters.top !== undefined) parts.push(`top=${filters.top}`);
  if (filters.keyword) parts.push(`keyword~${filters.keyword}`);
  return parts.join(' ');
}
