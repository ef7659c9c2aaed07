import type { ActionEntry } from '../actions/catalogue.js';
import type { BotServices } from '../services.js';
import { buildActionModal, buildLoadingModal, newestChoices } from '../views/action-modal.js';

export interface ModalRequest {
  entry: ActionEntry;
  triggerId: string;
  channel: string;
  clientId: string;
  prefill: Record<string, string>;
  /** The thread an approval card goes to (a result's "Send…" button). */
  thread?: string;
}

/**
 * What a modal carries back on submission: the channel, the action, and the client it was opened for (the
 * binding is re-read; a channel re-bound meanwhile must not run the form, filled for one client, on another).
 */
export interface ModalMetadata {
  channel: string;
  action: string;
  clientId?: string;
  thread?: string;
}

/** Reads a submitted form's metadata; undefined when it is not one of ours. */
export function parseModalMetadata(text: string): ModalMetadata | undefined {
  try {
    const meta = JSON.parse(text) as Record<string, unknown>;
    const { channel, action, clientId } = meta;
    if (typeof channel !== 'string' || typeof action !== 'string') return undefined;
    return {
      channel,
      action,
      ...(typeof clientId === 'string' ? { clientId } : {}),
      ...(typeof meta.thread === 'string' ? { thread: meta.thread } : {}),
    };
  } catch {
    return undefined;
  }
}

const OPTIONS_CAP = 100;
/** Rows read to find the newest (one gateway page): the note under the select says when there were more. */
const NEWEST_SCAN = 1_000;

/**
 * Opens an action's modal at once (a trigger_id dies after 3 s). When a select needs gateway data (the blog's
 * categories), a "Loading…" view opens first and is filled with views.update.
 */
export async function openActionModal(services: BotServices, request: ModalRequest): Promise<void> {
  const { entry } = request;
  const privateMetadata = JSON.stringify({
    channel: request.channel,
    action: entry.action,
    clientId: request.clientId,
    ...(request.thread ? { thread: request.thread } : {}),
  } satisfies ModalMetadata);
  const sourced = entry.fields.filter((f) => f.optionsFrom);
  if (!sourced.length) {
    await services.outbound.openModal(
      request.triggerId,
      buildActionModal(entry, { prefill: request.prefill, privateMetadata }),
    );
    return;
  }
  const opened = await services.outbound.openModal(request.triggerId, buildLoadingModal(entry.label));
  const options: Record<string, { label: string; value: string }[]> = {};
  const notes: Record<string, string> = {};
  for (const field of sourced) {
    const from = field.optionsFrom;
    if (!from) continue;
    try {
      if (from.newest) {
        // The gateway cannot order these rows: the bot reads a bounded number and offers the newest of them.
        const collected = await services.gateway.collect(
          from.resource,
          { clientId: request.clientId },
          { cap: NEWEST_SCAN },
        );
        const chosen = newestChoices(from, field, entry.usage, collected);
        options[field.name] = chosen.options;
        notes[field.name] = chosen.note;
        continue;
      }
      const list: { label: string; value: string }[] = [];
      for await (const row of services.gateway.rows(from.resource, {
        clientId: request.clientId,
        maxRows: OPTIONS_CAP,
      })) {
        const value = row[from.valueField];
        if (value === undefined || value === null) continue;
        list.push({ label: String(row[from.labelField] ?? value), value: String(value) });
      }
      options[field.name] = list;
    } catch (error) {
      // A select without options falls back to a text input; the person can still type the id.
      services.logger.warn(`could not load ${from.resource} for the ${entry.action} modal`, error);
    }
  }
  if (!opened.viewId) throw new Error('views.open answered without a view id');
  await services.outbound.updateModal(
    opened.viewId,
    buildActionModal(entry, { prefill: request.prefill, privateMetadata, options, notes }),
    opened.hash,
  );
}
