import { randomUUID } from 'node:crypto';
import type { WebClient } from '@slack/web-api';
import type { ActionEntry } from '../actions/catalogue.js';
import { findEarlierRecord } from '../actions/duplicate-guard.js';
import type { Row } from '../gateway/types.js';
import type { ActionJobData } from '../jobs/queue.js';
import type { BotServices } from '../services.js';
import type { ChannelBinding } from '../store/bindings.js';
import { claimInFlight, type InFlight, releaseInFlight } from '../store/in-flight.js';
import { ActionLedger, actionFingerprint } from '../store/ledger.js';
import { buildDuplicatePrompt } from '../views/duplicate-prompt.js';
import { buildJobStatus, type JobStatusInput, subjectOf } from '../views/job-status.js';
import type { Message } from './context.js';
import { UserError, UserErrorCode } from './user-error.js';

export interface ActionRequest {
  entry: ActionEntry;
  fields: Record<string, unknown>;
  binding: Pick<ChannelBinding, 'clientId' | 'clientLabel'>;
  channel: string;
  user: string;
  /** The Slack request's own dedupe key (trigger id, view id, click): also the BullMQ job id. */
  jobKey: string;
  confirmedDuplicate?: boolean;
  retryOf?: string;
}

const PENDING_TTL_SEC = 3_600;

const pendingKey = (services: BotServices, id: string) => `${services.config.redis.prefix}:pending:${id}`;

/** A request waiting for "Generate another": kept in Redis so the button carries only an id, not the payload. */
export async function takePendingRequest(
  services: BotServices,
  id: string,
): Promise<(Omit<ActionRequest, 'entry'> & { action: string }) | undefined> {
  const raw = await services.redis.getdel(pendingKey(services, id));
  return raw ? JSON.parse(raw) : undefined;
}

export function guardedRefusal(entry: ActionEntry): UserError {
  return new UserError(UserErrorCode.Guarded, `${entry.label} needs a person’s approval before it runs.`, {
    hint: 'Approval buttons are not available in this version yet, so the bot does not run it. Run it from the agency platform for now.',
  });
}

/**
 * An earlier successful request with the same key fields (§4.4 rule 1): our own ledger first (it also knows
 * actions whose records the gateway cannot list), then the resource the action writes to.
 */
async function findEarlier(
  services: BotServices,
  entry: ActionEntry,
  clientId: string,
  fields: Record<string, unknown>,
): Promise<Row | undefined> {
  const ledger = new ActionLedger(services.redis, services.config.redis.prefix);
  const [mine] = await ledger.findByFingerprint(
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
  return findEarlierRecord(services.gateway, entry, clientId, fields);
}

function alreadyQueued(request: ActionRequest): UserError {
  const what = request.retryOf ? 'That job was already retried' : 'That request was already queued';
  return new UserError(
    UserErrorCode.AlreadyQueued,
    `${what} (job \`${request.jobKey}\`); nothing new was queued.`,
    {
      hint: request.retryOf
        ? 'The retry’s result is in its own thread: use the buttons there, or run the command again.'
        : 'Run the command again to ask for it anew.',
    },
  );
}

/** Enqueues; if Redis refuses, the "queued" message says it failed instead of waiting forever. */
async function enqueueOrSay(
  services: BotServices,
  client: WebClient,
  channel: string,
  statusTs: string,
  status: Omit<JobStatusInput, 'state'>,
  data: ActionJobData,
): ReturnType<BotServices['queue']['enqueue']> {
  try {
    return await services.queue.enqueue(data);
  } catch (error) {
    const failed = buildJobStatus({
      ...status,
      state: 'failed',
      summary: 'could not be queued; nothing ran. Try again.',
    });
    await client.chat
      .update({ channel, ts: statusTs, text: failed.text, blocks: failed.blocks })
      .catch((e: unknown) => services.logger.warn('could not mark an unqueued job', e));
    throw error;
  }
}

/** Parks the request and asks "already exists: generate another?" (the buttons carry only the parked id). */
async function askFirst(
  services: BotServices,
  request: ActionRequest,
  earlier: Row,
  reply: (message: Message) => Promise<void>,
): Promise<void> {
  const id = randomUUID();
  const { entry, ...rest } = request;
  await services.redis.set(
    pendingKey(services, id),
    JSON.stringify({ ...rest, action: entry.action }),
    'EX',
    PENDING_TTL_SEC,
  );
  await reply(buildDuplicatePrompt({ entry, earlier, fields: request.fields, confirmValue: id }));
}

/**
 * The duplicate check and the enqueue as one step (§4.4 rule 1): the request claims its fingerprint first,
 * so of two identical requests sent together one runs and the other is asked, exactly as a later one would be.
 * Returns the claimed fingerprint (undefined when nothing was claimed), or "asked" when the person was asked.
 */
async function claimOrAsk(
  services: BotServices,
  request: ActionRequest,
  reply: (message: Message) => Promise<void>,
): Promise<string | undefined | 'asked'> {
  const { entry, fields, binding } = request;
  if (entry.sameFields.length === 0) return undefined;
  const fingerprint = actionFingerprint(entry, binding.clientId, fields);
  const id = { clientId: binding.clientId, action: entry.action, fingerprint };
  const claim = await claimInFlight(services.redis, services.config.redis.prefix, id, {
    jobKey: request.jobKey,
    requestedBy: request.user,
    fields,
    at: Date.now(),
  });
  const holds = claim.claimed ? fingerprint : undefined;
  // A redelivery of the request that holds the claim goes on: the queue's job id makes it one job.
  const redelivery = !claim.claimed && claim.holder?.jobKey === request.jobKey;
  if (request.confirmedDuplicate || redelivery) return holds;
  const release = () =>
    holds ? releaseInFlight(services.redis, services.config.redis.prefix, id, request.jobKey) : undefined;
  try {
    const earlier = claim.claimed
      ? await findEarlier(services, entry, binding.clientId, fields)
      : inFlightRow(claim.holder);
    if (!earlier) return holds;
    await release();
    await askFirst(services, request, earlier, reply);
    return 'asked';
  } catch (error) {
    await release();
    throw error;
  }
}

/** What the question shows for a twin still queued or running: its fields, and when it was asked for. */
function inFlightRow(holder: InFlight | undefined): Row {
  return { ...(holder?.fields ?? {}), created_at: new Date(holder?.at ?? Date.now()).toISOString() };
}

/**
 * The web role's whole part in running an action (DESIGN §1): validate, claim the request's fingerprint and
 * check for an earlier identical record (§4.4 rule 1), post the status message in the channel, enqueue. The
 * worker does the POST, and gives the fingerprint back when the job ends.
 */
export async function submitAction(
  services: BotServices,
  client: WebClient,
  request: ActionRequest,
  reply: (message: Message) => Promise<void>,
): Promise<void> {
  const { entry, fields, binding } = request;
  // Every surface (command, modal, "Generate another", Retry) passes here: the one place the action is checked.
  await services.access.requireAction(request.user, entry);
  if (entry.guarded) throw guardedRefusal(entry);
  const holds = await claimOrAsk(services, request, reply);
  if (holds === 'asked') return;
  const release = async () => {
    if (!holds) return;
    const id = { clientId: binding.clientId, action: entry.action, fingerprint: holds };
    await releaseInFlight(services.redis, services.config.redis.prefix, id, request.jobKey).catch(
      (error: unknown) => services.logger.warn('could not release an in-flight claim', error),
    );
  };
  const status = {
    label: entry.label,
    clientLabel: binding.clientLabel,
    requestedBy: request.user,
    subject: subjectOf(fields),
    retryOf: request.retryOf,
  };
  let result: Awaited<ReturnType<BotServices['queue']['enqueue']>>;
  let statusTs: string;
  try {
    const queued = buildJobStatus({ ...status, state: 'queued' });
    const posted = await client.chat.postMessage({
      channel: request.channel,
      text: queued.text,
      blocks: queued.blocks,
    });
    statusTs = posted.ts ?? '';
    result = await enqueueOrSay(services, client, request.channel, statusTs, status, {
      jobKey: request.jobKey,
      action: entry.action,
      clientId: binding.clientId,
      clientLabel: binding.clientLabel,
      fields,
      channel: request.channel,
      requestedBy: request.user,
      statusTs,
      confirmedDuplicate: request.confirmedDuplicate,
      retryOf: request.retryOf,
      enqueuedAt: Date.now(),
      ...(holds ? { holdsFingerprint: holds } : {}),
    });
  } catch (error) {
    await release();
    throw error;
  }
  services.metrics.actionsEnqueued.inc({ action: entry.action, duplicate: String(result.duplicate) });
  if (result.taken) {
    // An older job already has this request's id (a Retry clicked after its claims expired): nothing was
    // queued, so the "queued" message goes and the person is told where that job is.
    await release();
    await client.chat
      .delete({ channel: request.channel, ts: statusTs })
      .catch((error: unknown) => services.logger.warn('could not remove an unqueued job message', error));
    throw alreadyQueued(request);
  }
  if (result.duplicate) {
    // The same Slack request reached us twice: the first one's message stands, this one goes. A claim taken
    // here belongs to no job (the first one's job has ended and given its own back).
    await release();
    await client.chat.delete({ channel: request.channel, ts: statusTs });
    return;
  }
  if (result.ahead > 0) {
    const waiting = buildJobStatus({ ...status, state: 'queued', ahead: result.ahead });
    await client.chat
      .update({ channel: request.channel, ts: statusTs, text: waiting.text, blocks: waiting.blocks })
      .catch((error: unknown) => services.logger.warn('could not show the queue position', error));
  }
}
