import { BadRequestError } from './errors.js';
import {
  badDirectionMessage,
  badFilterMessage,
  badLimitMessage,
  badOffsetMessage,
  badOrderMessage,
  DIRECTIONS,
  FILTER_FIELDS,
  LIMIT_MAX,
  ORDER_FIELDS,
} from './spec.js';
import type { ReadParams } from './types.js';

/**
 * Checks read parameters before any request leaves (docs/gateway-api.md §4.2 rule 1), with the same 400
 * message the gateway would give, so a person sees one wording whichever side caught the mistake. Returns the
 * query.
 */

export const MISSING_CLIENT_ID_MESSAGE =
  'Missing client_id: every resource except clients is read for one client';

function missingResourceMessage(): string {
  return 'Missing resource: name one of the resources the discovery call lists';
}

const orderSet: ReadonlySet<string> = new Set(ORDER_FIELDS);
const filterSet: ReadonlySet<string> = new Set(FILTER_FIELDS);
const directionSet: ReadonlySet<string> = new Set(DIRECTIONS);

export function validateReadParams(resource: string, params: ReadParams): void {
  if (typeof resource !== 'string' || resource.trim() === '')
    throw new BadRequestError(missingResourceMessage());
  if (resource !== 'clients' && (params.clientId === undefined || params.clientId === '')) {
    throw new BadRequestError(MISSING_CLIENT_ID_MESSAGE);
  }
  if (params.order !== undefined && !orderSet.has(params.order)) {
    throw new BadRequestError(badOrderMessage(String(params.order)));
  }
  if (params.filter !== undefined && !filterSet.has(params.filter.field)) {
    throw new BadRequestError(badFilterMessage(String(params.filter.field)));
  }
  if (params.direction !== undefined && !directionSet.has(params.direction)) {
    throw new BadRequestError(badDirectionMessage(String(params.direction)));
  }
  const { limit, offset } = params;
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= LIMIT_MAX)) {
    throw new BadRequestError(badLimitMessage(String(limit)));
  }
  if (offset !== undefined && !(Number.isInteger(offset) && offset >= 0)) {
    throw new BadRequestError(badOffsetMessage(String(offset)));
  }
}

/** The query string of a read, in a stable order (easier to read in logs). Call after validating. */
export function buildReadQuery(resource: string, params: ReadParams): string {
  const query = new URLSearchParams({ resource });
  if (resource !== 'clients' && params.clientId !== undefined) query.set('client_id', params.clientId);
  if (params.limit !== undefined) query.set('limit', String(params.limit));
  if (params.offset !== undefined) query.set('offset', String(params.offset));
  if (params.order !== undefined) query.set('order', params.order);
  if (params.direction !== undefined) query.set('direction', params.direction);
  if (params.filter !== undefined) {
    query.set('filter_field', params.filter.field);
    query.set('filter_value', params.filter.value);
  }
  return query.toString();
}
