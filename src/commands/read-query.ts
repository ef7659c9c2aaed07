import type { Token } from '../actions/token.js';
import { FILTER_FIELDS, ORDER_FIELDS } from '../gateway/spec.js';
import { UserError, UserErrorCode } from '../requests/user-error.js';

/** A parsed read: what `get` and the shortcuts send to the gateway (DESIGN §4). */
export interface ReadQuery {
  filter?: { field: string; value: string };
  order?: string;
  direction?: 'asc' | 'desc';
  limit: number;
  offset: number;
}

const whole = (name: string, text: string, min: number, max: number, usage: string): number => {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < min || n > max) {
    throw new UserError(
      UserErrorCode.BadArguments,
      `\`${name}\` must be a whole number from ${min} to ${max}.`,
      {
        usage,
      },
    );
  }
  return n;
};

/**
 * Parses `[filter_field=value] [order=field] [asc|desc] [limit=N] [offset=N]`. A filter is written as
 * `status=active` (any of the gateway's filter fields) or `filter_field=status filter_value=active`.
 */
export function parseReadQuery(args: Token[], usage: string, defaultLimit: number): ReadQuery {
  const query: ReadQuery = { limit: defaultLimit, offset: 0 };
  let filterField: string | undefined;
  let filterValue: string | undefined;
  for (const token of args) {
    if (token.kind === 'word') {
      const word = token.value.toLowerCase();
      if (word === 'asc' || word === 'desc') {
        query.direction = word;
        continue;
      }
      throw new UserError(UserErrorCode.BadArguments, `I don't understand \`${token.value}\` here.`, {
        hint: 'Filters are written as `field=value`, e.g. `status=active`.',
        usage,
      });
    }
    const name = token.name.toLowerCase();
    if (name === 'order') {
      if (!(ORDER_FIELDS as readonly string[]).includes(token.value)) {
        throw new UserError(UserErrorCode.BadArguments, `\`order\` cannot be \`${token.value}\`.`, {
          hint: `Use one of: ${ORDER_FIELDS.join(', ')}.`,
          usage,
        });
      }
      query.order = token.value;
    } else if (name === 'direction') {
      const dir = token.value.toLowerCase();
      if (dir !== 'asc' && dir !== 'desc') {
        throw new UserError(UserErrorCode.BadArguments, '`direction` is `asc` or `desc`.', { usage });
      }
      query.direction = dir;
    } else if (name === 'limit') {
      query.limit = whole('limit', token.value, 1, 1000, usage);
    } else if (name === 'offset') {
      query.offset = whole('offset', token.value, 0, Number.MAX_SAFE_INTEGER, usage);
    } else if (name === 'filter_field') {
      filterField = token.value;
    } else if (name === 'filter_value') {
      filterValue = token.value;
    } else if ((FILTER_FIELDS as readonly string[]).includes(name)) {
      if (filterField !== undefined) {
        throw new UserError(UserErrorCode.BadArguments, 'The gateway filters on one field at a time.', {
          usage,
        });
      }
      filterField = name;
      filterValue = token.value;
    } else {
      throw new UserError(
        UserErrorCode.BadArguments,
        `\`${token.name}\` is not something I can filter or sort by.`,
        {
          hint: `Filter fields: ${FILTER_FIELDS.join(', ')}. Also: order=, asc|desc, limit=, offset=.`,
          usage,
        },
      );
    }
  }
  if (filterField !== undefined || filterValue !== undefined) {
    if (!filterField || filterValue === undefined) {
      throw new UserError(
        UserErrorCode.BadArguments,
        'A filter needs both a field and a value, e.g. `status=active`.',
        {
          usage,
        },
      );
    }
    if (!(FILTER_FIELDS as readonly string[]).includes(filterField)) {
      throw new UserError(UserErrorCode.BadArguments, `\`${filterField}\` is not a filter field.`, {
        hint: `Use one of: ${FILTER_FIELDS.join(', ')}.`,
        usage,
      });
    }
    query.filter = { field: filterField, value: filterValue };
  }
  return query;
}
