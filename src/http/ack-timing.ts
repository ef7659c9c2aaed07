import type { App, ReceiverEvent } from '@slack/bolt';
import type { Metrics } from '../metrics.js';

/**
 * Measures every ack, whichever listener gives it and over either transport: both receivers hand each
 * verified request to `app.processEvent` with the `ack` that answers Slack, so wrapping that one method sees
 * them all without touching a listener. The clock starts when the request reaches the app.
 */
export function timeAcks(app: App, metrics: Metrics): void {
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
    return processEvent({ ...event, ack });
  };
}
