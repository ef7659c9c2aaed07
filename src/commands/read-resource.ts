import { UserError, UserErrorCode } from '../requests/user-error.js';
import type { BotServices } from '../services.js';
import type { ChannelBinding } from '../store/bindings.js';
import type { SlackMessage } from '../views/blocks.js';
import { buildResourcePage, DEFAULT_PAGE_ROWS } from '../views/resource-page.js';
import type { ReadQuery } from './read-query.js';
import { closestCommand } from './tokenizer.js';

/** Refuses a resource the discovery call does not list, with the closest match (new resources work without code). */
export async function checkResource(services: BotServices, resource: string): Promise<void> {
  const { resources } = await services.gateway.discover();
  if (resources.includes(resource)) return;
  const guess = closestCommand(resource, resources);
  throw new UserError(UserErrorCode.UnknownResource, `The gateway has no resource called \`${resource}\`.`, {
    hint: guess ? `Did you mean \`${guess}\`?` : `Readable resources: ${resources.join(', ')}.`,
  });
}

/** Reads one page of a resource for the channel's client, as `user` may, and renders it (with Next/Previous). */
export async function readResourcePage(
  services: BotServices,
  user: string,
  binding: Pick<ChannelBinding, 'clientId' | 'clientLabel'>,
  resource: string,
  query: ReadQuery,
): Promise<SlackMessage> {
  services.access.requireRead(user, resource);
  const clientId = resource === 'clients' ? undefined : binding.clientId;
  // A message shows DEFAULT_PAGE_ROWS rows: fetching more (`limit=1000`) would read rows nobody sees. Next
  // then steps by what was shown, so paging still covers every row once.
  const limit = Math.min(query.limit, DEFAULT_PAGE_ROWS);
  const page = await services.gateway.read(resource, {
    clientId,
    filter: query.filter,
    order: query.order,
    direction: query.direction,
    limit,
    offset: query.offset,
  });
  return buildResourcePage({
    resource,
    clientLabel: binding.clientLabel,
    rows: page.data,
    pagination: page.pagination,
    query: { resource, clientId: binding.clientId, ...query, limit },
    maxRows: DEFAULT_PAGE_ROWS,
  });
}
