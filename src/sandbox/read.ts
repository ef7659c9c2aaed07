import {
  badDirectionMessage,
  badFilterMessage,
  badLimitMessage,
  badOffsetMessage,
  badOrderMessage,
  DIRECTIONS,
  FILTER_FIELDS,
  LIMIT_DEFAULT,
  LIMIT_MAX,
  ORDER_FIELDS,
} from '../gateway/spec.js';
import type { Row } from '../gateway/types.js';
import { type Caller, clientDenial } from './auth.js';
import { clientRow, findClient } from './clients.js';
import { SANDBOX_RESOURCES } from './discovery.js';
import { endlessPage } from './hostile.js';
import { errorReply, type Reply } from './reply.js';
import type { SandboxStore } from './sample-store.js';
import { type Selection, selectRows } from './select.js';

/**
 * docs/gateway-api.md §4.2: a read. Parameters are checked in a fixed order so each mistake gets its own 400.
 */

const WHOLE = /^\d+$/;

interface ReadQuery {
  resource: string;
  clientId: string | undefined;
  limit: number;
  offset: number;
  selection: Selection;
}

function includes<T extends string>(list: readonly T[], value: string): value is T {
  return (list as readonly string[]).includes(value);
}

function parseQuery(params: URLSearchParams): ReadQuery | Reply {
  const resources = `Readable resources: ${SANDBOX_RESOURCES.join(', ')}`;
  const resource = params.get('resource');
  if (!resource) return errorReply(400, `Missing required parameter "resource". ${resources}`);
  if (!SANDBOX_RESOURCES.includes(resource))
    return errorReply(400, `Unknown resource "${resource}". ${resources}`);

  const limitText = params.get('limit');
  const limit = limitText === null ? LIMIT_DEFAULT : Number(limitText);
  if (limitText !== null && (!WHOLE.test(limitText) || limit < 1 || limit > LIMIT_MAX)) {
    return errorReply(400, badLimitMessage(limitText));
  }
  const offsetText = params.get('offset');
  if (offsetText !== null && !WHOLE.test(offsetText)) return errorReply(400, badOffsetMessage(offsetText));

  const order = params.get('order') ?? undefined;
  if (order !== undefined && !includes(ORDER_FIELDS, order)) return errorReply(400, badOrderMessage(order));
  const direction = params.get('direction') ?? 'desc';
  if (!includes(DIRECTIONS, direction)) return errorReply(400, badDirectionMessage(direction));

  const field = params.get('filter_field');
  const value = params.get('filter_value');
  if (field !== null && !includes(FILTER_FIELDS, field)) return errorReply(400, badFilterMessage(field));
  if (field !== null && value === null) {
    return errorReply(400, `Missing "filter_value": filter_field "${field}" needs a value to match exactly`);
  }
  if (field === null && value !== null) {
    return errorReply(
      400,
      `"filter_value" needs a "filter_field". Allowed values of filter_field: ${FILTER_FIELDS.join(', ')}`,
    );
  }
  return {
    resource,
    clientId: params.get('client_id') || undefined,
    limit,
    offset: offsetText === null ? 0 : Number(offsetText),
    selection: {
      order,
      direction,
      filter: field !== null && value !== null ? { field, value } : undefined,
    },
  };
}

function page(
  resource: string,
  clientId: string | undefined,
  rows: readonly Row[],
  query: ReadQuery,
  endless: boolean,
): Reply {
  const { limit, offset } = query;
  return {
    status: 200,
    body: {
      resource,
      ...(clientId === undefined ? {} : { client_id: clientId }),
      data: endless ? endlessPage(rows, offset, limit) : rows.slice(offset, offset + limit),
      pagination: { total: rows.length, limit, offset, has_more: endless || offset + limit < rows.length },
    },
  };
}

/** `endless`: the pages never end (the hostile knob `endlessRate`). */
export function readReply(
  store: SandboxStore,
  caller: Caller,
  params: URLSearchParams,
  endless = false,
): Reply {
  const query = parseQuery(params);
  if ('status' in query) return query;
  if (query.resource === 'clients') {
    const reachable = caller.grant.clients.flatMap((id) => {
      const client = findClient(id);
      return client ? [clientRow(client)] : [];
    });
    return page('clients', undefined, selectRows(reachable, query.selection), query, endless);
  }
  if (!query.clientId) {
    return errorReply(
      400,
      `Missing required parameter "client_id" (every resource except clients needs one). List the reachable clients with resource=clients.`,
    );
  }
  const denial = clientDenial(caller, query.clientId);
  if (denial) return errorReply(denial.status, denial.error);
  if (endless) {
    const rows = store.view(query.clientId, query.resource, query.selection);
    return page(query.resource, query.clientId, rows, query, true);
  }
  const { rows, total } = store.page(
    query.clientId,
    query.resource,
    query.selection,
    query.offset,
    query.limit,
  );
  return {
    status: 200,
    body: {
      resource: query.resource,
      client_id: query.clientId,
      data: rows,
      pagination: {
        total,
        limit: query.limit,
        offset: query.offset,
        has_more: query.offset + query.limit < total,
      },
    },
  };
}
