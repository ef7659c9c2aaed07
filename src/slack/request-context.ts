import { randomUUID } from 'node:crypto';
import type { App, ReceiverEvent } from '@slack/bolt';
import type { LogContext } from '../logger.js';
import type { Metrics } from '../metrics.js';

/**
 * Every Slack request, whichever listener takes it and over either transport: both receivers hand each
 * verified request to `app.processEvent` with the `ack` that answers Slack, so wrapping that one method
 * times every ack and gives every request an id (`context.requestId`, for its log lines) without touching a
 * listener. The clock starts when the request reaches the app.
 */
export function instrumentRequests(app: App, metrics: Metrics): void {
  const processEvent = app.processEvent.bind(app);
  app.processEvent = (event: ReceiverEvent) => {
    const started = performance.now();
    const body = event.body as { command?: unknown; type?: unknown };
    const kind = typeof body.command === 'string' ? 'command' : String(body.type ?? 'other');
    let timed = false;
    const ack: ReceiverEvent['ack'] = async (response) => {
      try {
        return await event.ack(response);
      } finally {
        if (!timed) metrics.ack(kind, (performance.now() - started) / 1_000);
        timed = true;
      }
    };
    const customProperties = { ...event.customProperties, requestId: randomUUID().slice(0, 8) };
    return processEvent({ ...event, ack, customProperties });
  };
}

type Id = { id?: string } | null | undefined;
interface SlackBody {
  team_id?: string;
  channel_id?: string;
  user_id?: string;
  team?: Id;
  channel?: Id;
  user?: Id & { team_id?: string };
}

/** The ids of a Slack request for its log lines: request, team, channel, user (slash command or interaction). */
export function slackLogContext(body: unknown, context?: Record<string, unknown>): LogContext {
  const b = (body ?? {}) as SlackBody;
  const fields: LogContext = {
    requestId: typeof context?.requestId === 'string' ? context.requestId : undefined,
    team: b.team_id ?? b.team?.id ?? b.user?.team_id,
    channel: b.channel_id ?? b.channel?.id,
    user: b.user_id ?? b.user?.id,
  };
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
}
