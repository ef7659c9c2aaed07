import { randomUUID } from 'node:crypto';
import type { WebClient } from '@slack/web-api';
import type { ActionEntry } from '../actions/catalogue.js';
import { findEarlierRecord } from '../actions/duplicate-guard.js';
import type { Row } from '../gateway/types.js';
import type { ActionJobData } from '../jobs/queue.js';
import type { BotServices } from '../services.js';
import type { ChannelBinding } from '../store/bindings.js';
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

/**
 * The web role's whole part in running an action (DESIGN §1): validate, check for an earlier identical record
 * (§4.4 rule 1), post the status message in the channel, enqueue. The worker does the POST.
 */
export async function submitAction(
  services: BotServices,
  client: WebClient,
  request: ActionRequest,
  reply: (message: Message) => Promise<void>,
): Promise<void> {
  const { entry, fields, binding } = request;
  if (entry.guarded) throw guardedRefusal(entry);
  if (!request.confirmedDuplicate && entry.sameFields.length > 0) {
    const earlier = await findEarlier(services, entry, binding.clientId, fields);
    if (earlier) {
      const id = randomUUID();
      const { entry: _entry, ...rest } = request;
      await services.redis.set(
        pendingKey(services, id),
        JSON.stringify({ ...rest, action: entry.action }),
        'EX',
        PENDING_TTL_SEC,
      );
      await reply(buildDuplicatePrompt({ entry, earlier, fields, confirmValue: id }));
      return;
    }
  }
  const status = {
    label: entry.label,
    clientLabel: binding.clientLabel,
    requestedBy: request.user,
    subject: subjectOf(fields),
    retryOf: request.retryOf,
  };
  const queued = buildJobStatus({ ...status, state: 'queued' });
  const posted = await client.chat.postMessage({
    channel: request.channel,
    text: queued.text,
    blocks: queued.blocks,
  });
  const statusTs = posted.ts ?? '';
  const result = await enqueueOrSay(services, client, request.channel, statusTs, status, {
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
  });
  services.metrics.actionsEnqueued.inc({ action: entry.action, duplicate: String(result.duplicate) });
  if (result.duplicate) {
    // The same Slack request reached us twice: the first one's message stands, this one goes.
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
