import type { ActionEntry } from '../actions/index.js';
import { findEarlierRecord } from '../actions/index.js';
import type { Row } from '../gateway/index.js';
import {
  actionFingerprint,
  claimInFlight,
  type InFlight,
  type InFlightId,
  releaseInFlight,
} from '../store/index.js';
import type { ActionRequest, RequestDeps } from './request.js';

/**
 * The duplicate guard (docs/gateway-api.md §4.4 rule 1) as one step with the in-flight claim: the request
 * claims its fingerprint first, so of two identical requests sent together one runs and the other is asked,
 * exactly as a later one would be.
 */

export type DuplicateCheck =
  /** Go on; `holds` is the claimed fingerprint (undefined when nothing was claimed). */
  { kind: 'go'; holds: string | undefined } | { kind: 'ask'; earlier: Row };

export function inFlightId(entry: ActionEntry, clientId: string, fingerprint: string): InFlightId {
  return { clientId, action: entry.action, fingerprint };
}

export async function claimOrFindEarlier(
  deps: RequestDeps,
  entry: ActionEntry,
  clientId: string,
  request: ActionRequest,
): Promise<DuplicateCheck> {
  const { fields } = request;
  if (entry.sameFields.length === 0) return { kind: 'go', holds: undefined };
  const fingerprint = actionFingerprint(entry, clientId, fields);
  const id = inFlightId(entry, clientId, fingerprint);
  const claim = await claimInFlight(deps.redis, deps.prefix, id, {
    jobKey: request.requestKey,
    requestedBy: request.requester,
    fields,
    at: Date.now(),
  });
  const holds = claim.claimed ? fingerprint : undefined;
  // A redelivery of the request that holds the claim goes on: the queue's job id makes it one job.
  const redelivery = !claim.claimed && claim.holder?.jobKey === request.requestKey;
  if (request.confirmedDuplicate || redelivery) return { kind: 'go', holds };
  const release = () =>
    holds ? releaseInFlight(deps.redis, deps.prefix, id, request.requestKey) : undefined;
  try {
    const earlier = claim.claimed
      ? await findEarlier(deps, entry, clientId, fields)
      : inFlightRow(claim.holder);
    if (!earlier) return { kind: 'go', holds };
    await release();
    return { kind: 'ask', earlier };
  } catch (error) {
    await release();
    throw error;
  }
}

/**
 * An earlier successful request with the same key fields: our own ledger first (it also knows actions whose
 * records the gateway cannot list), then the resource the action writes to.
 */
async function findEarlier(
  deps: RequestDeps,
  entry: ActionEntry,
  clientId: string,
  fields: Record<string, unknown>,
): Promise<Row | undefined> {
  const [mine] = await deps.ledger.findByFingerprint(
    clientId,
    entry.action,
    actionFingerprint(entry, clientId, fields),
    1,
  );
  if (mine) {
    return {
      ...mine.fields,
      ...(mine.recordId ? { id: mine.recordId } : {}),
      created_at: new Date(mine.at).toISOString(),
    };
  }
  return findEarlierRecord(deps.gateway, entry, clientId, fields);
}

/** What the question shows for a twin still queued or running: its fields, and when it was asked for. */
function inFlightRow(holder: InFlight | undefined): Row {
  return { ...(holder?.fields ?? {}), created_at: new Date(holder?.at ?? Date.now()).toISOString() };
}
