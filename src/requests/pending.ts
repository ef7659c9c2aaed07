import { randomUUID } from 'node:crypto';
import type { Redis } from '../redis/connection.js';
import type { ActionRequest } from './request.js';

/**
 * Requests parked behind the duplicate question: kept in Redis, so "Generate another" carries only an id,
 * not the payload. Taken once (GETDEL): a double click queues one job. A parked request lives an hour; a value
 * that is not a request reads as expired, and the person is told to run the command again.
 */

const PENDING_TTL_SEC = 3_600;

const pendingKey = (prefix: string, id: string) => `${prefix}:pending:${id}`;

export async function parkRequest(redis: Redis, prefix: string, request: ActionRequest): Promise<string> {
  const id = randomUUID();
  await redis.set(pendingKey(prefix, id), JSON.stringify(request), 'EX', PENDING_TTL_SEC);
  return id;
}

export async function takePendingRequest(
  redis: Redis,
  prefix: string,
  id: string,
): Promise<ActionRequest | undefined> {
  const raw = await redis.getdel(pendingKey(prefix, id));
  if (!raw) return undefined;
  const parked = JSON.parse(raw) as Partial<ActionRequest>;
  if (!parked.replyTo || typeof parked.action !== 'string' || typeof parked.requester !== 'string')
    return undefined;
  return parked as ActionRequest;
}
